import Foundation

/// Lists ALSA capture and playback devices from `/proc/asound/cards` and `/proc/asound/pcm`, without libasound.
///
/// Every PCM device of every card becomes one ``MediaDevice`` per direction it supports, labelled
/// `<card name>: <pcm name> (input|output)`. Types, since ALSA says what a card is but not where it sits:
///
/// | card / PCM | input | output |
/// |---|---|---|
/// | name mentions Bluetooth | `audioBluetooth` | `audioBluetooth` |
/// | USB audio (driver `USB-Audio`): almost always a headset on a call machine | `audioWiredHeadset` | `audioWiredHeadset` |
/// | HDMI or DisplayPort PCM; `Loopback` and `Dummy` drivers | `other` | `other` |
/// | anything else (onboard HDA, SoC codecs) | `audioHandset` (the built-in microphone, as iOS maps `builtInMic`) | `audioBuiltInSpeaker` |
///
/// Sans-IO parsing (``parse(cards:pcm:)``) plus one reading function. Stateless, safe from any thread.
enum ALSASoundCards {
    /// A card line pair of `/proc/asound/cards`.
    struct Card: Equatable, Sendable {
        var index: Int
        var id: String
        var driver: String
        var name: String
        var longName: String
    }

    /// The devices of the machine, read from `root` (normally `/proc/asound`); empty when it is absent (containers,
    /// CI) or lists no cards.
    static func list(root: String = "/proc/asound") -> [MediaDevice] {
        guard let cards = try? String(contentsOfFile: root + "/cards", encoding: .utf8) else { return [] }
        let pcm = (try? String(contentsOfFile: root + "/pcm", encoding: .utf8)) ?? ""
        return parse(cards: cards, pcm: pcm)
    }

    /// The devices described by the texts of `cards` and `pcm`, inputs first, each in file order.
    static func parse(cards: String, pcm: String) -> [MediaDevice] {
        let cardsByIndex = Dictionary(parseCards(cards).map { ($0.index, $0) }, uniquingKeysWith: { first, _ in first })
        var inputs: [MediaDevice] = []
        var outputs: [MediaDevice] = []
        for line in pcm.split(whereSeparator: \.isNewline) {
            // "01-00: USB Audio : USB Audio : playback 1 : capture 1"
            guard let colon = line.firstIndex(of: ":") else { continue }
            let numbers = line[..<colon].split(separator: "-")
            guard numbers.count == 2, let cardIndex = Int(numbers[0]), let deviceIndex = Int(numbers[1]),
                  let card = cardsByIndex[cardIndex] else { continue }
            let fields = line[line.index(after: colon)...].components(separatedBy: " : ")
                .map { $0.trimmingCharacters(in: .whitespaces) }
            let name = fields.first.flatMap { $0.isEmpty ? nil : $0 } ?? "PCM \(deviceIndex)"
            if fields.contains(where: { $0.hasPrefix("capture ") }) {
                inputs.append(device(card: card, pcm: deviceIndex, pcmName: name, direction: .input))
            }
            if fields.contains(where: { $0.hasPrefix("playback ") }) {
                outputs.append(device(card: card, pcm: deviceIndex, pcmName: name, direction: .output))
            }
        }
        return inputs + outputs
    }

    /// The cards of a `/proc/asound/cards` text (" 1 [Headset        ]: USB-Audio - Jabra EVOLVE 20 MS" and an
    /// indented long name line); "--- no soundcards ---" gives none.
    static func parseCards(_ text: String) -> [Card] {
        var cards: [Card] = []
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard let open = trimmed.firstIndex(of: "["), let close = trimmed.firstIndex(of: "]"), open < close,
                  let index = Int(trimmed[..<open].trimmingCharacters(in: .whitespaces)) else {
                // A long name line belongs to the card above it.
                if !trimmed.isEmpty, !cards.isEmpty, cards[cards.count - 1].longName.isEmpty {
                    cards[cards.count - 1].longName = trimmed
                }
                continue
            }
            let id = trimmed[trimmed.index(after: open)..<close].trimmingCharacters(in: .whitespaces)
            var rest = trimmed[trimmed.index(after: close)...].trimmingCharacters(in: .whitespaces)
            if rest.hasPrefix(":") { rest.removeFirst() }
            let parts = rest.components(separatedBy: " - ")
            let driver = parts[0].trimmingCharacters(in: .whitespaces)
            let name = parts.count > 1 ? parts[1...].joined(separator: " - ").trimmingCharacters(in: .whitespaces) : id
            cards.append(Card(index: index, id: id, driver: driver, name: name, longName: ""))
        }
        return cards
    }

    /// The type of a card's PCM in one direction, by the table on the type.
    static func type(card: Card, pcmName: String, direction: AudioDeviceEndpoint.Direction) -> MediaDeviceType {
        let names = [card.id, card.name, card.longName, pcmName].joined(separator: " ").lowercased()
        if names.contains("bluetooth") { return .audioBluetooth }
        if card.driver == "USB-Audio" { return .audioWiredHeadset }
        let pcm = pcmName.lowercased()
        if pcm.contains("hdmi") || pcm.contains("displayport") || ["Loopback", "Dummy"].contains(card.driver) {
            return .other
        }
        return direction == .input ? .audioHandset : .audioBuiltInSpeaker
    }

    private static func device(card: Card, pcm: Int, pcmName: String, direction: AudioDeviceEndpoint.Direction) -> MediaDevice {
        MediaDevice(label: "\(card.name): \(pcmName) (\(direction.rawValue))",
                    type: type(card: card, pcmName: pcmName, direction: direction),
                    endpoint: .alsa(card: card.index, device: pcm, direction: direction))
    }
}
