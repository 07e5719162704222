// swift-tools-version: 6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "carillon",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Carillon", targets: ["Carillon"]),
        .library(name: "CarillonServer", targets: ["CarillonServer"]),
        .library(name: "CarillonProtocol", targets: ["CarillonProtocol"]),
        .library(name: "CarillonControlClient", targets: ["CarillonControlClient"]),
        .library(name: "CarillonCodecs", targets: ["CarillonCodecs"]),
        .executable(name: "carillon", targets: ["carillon"]),
        .executable(name: "carillon-fuzz", targets: ["CarillonFuzz"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-protobuf.git", from: "1.39.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CCarillonOpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        // Hashes, MACs, constant-time comparison and secure random bytes over OpenSSL: shared by the transport
        // (STUN integrity, DTLS) and the protocol (SigV4, join tokens) without either depending on the other.
        .target(name: "CarillonCrypto", dependencies: ["CCarillonOpenSSL"], swiftSettings: strict),
        .target(
            name: "CarillonProtocol",
            dependencies: [
                "CarillonCrypto",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: strict
        ),
        // The control-API client the CLI, the tests and apps' back ends use: on its own so the SDK does not carry
        // AsyncHTTPClient.
        .target(
            name: "CarillonControlClient",
            dependencies: [
                "CarillonProtocol",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strict
        ),
        // X11 screen capture for content share: XCB with MIT-SHM.
        .systemLibrary(
            name: "CCarillonXCB",
            pkgConfig: "xcb-shm",
            providers: [.apt(["libxcb1-dev", "libxcb-shm0-dev"])]
        ),
        .systemLibrary(
            name: "CCarillonSRTP",
            pkgConfig: "libsrtp2",
            providers: [.apt(["libsrtp2-dev"])]
        ),
        .target(
            name: "CarillonRTC",
            dependencies: [
                "CCarillonOpenSSL",
                "CCarillonSRTP",
                "CarillonCrypto",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .systemLibrary(
            name: "CCarillonOpus",
            pkgConfig: "opus",
            providers: [.apt(["libopus-dev"])]
        ),
        .systemLibrary(
            name: "CCarillonVPX",
            pkgConfig: "vpx",
            providers: [.apt(["libvpx-dev"])]
        ),
        // libyuv-dev has no pkg-config file: the module map links -lyuv and the headers are in /usr/include.
        .systemLibrary(
            name: "CCarillonYUV",
            providers: [.apt(["libyuv-dev"])]
        ),
        .target(name: "CarillonCodecs", dependencies: ["CCarillonOpus", "CCarillonVPX", "CCarillonYUV"], swiftSettings: strict),
        // The media layer between the codecs and the transport: VP8 payloads (descriptor, packetizer, frame assembler,
        // the SFU's stream rewriter) and the audio jitter buffer with its Opus playout.
        .target(name: "CarillonMedia", dependencies: ["CarillonCodecs", "CarillonRTC",
                                                      .product(name: "NIOCore", package: "swift-nio")],
                swiftSettings: strict),
        // Measurement kits for the tests and the CLI's benchmarks, kept out of the shipped libraries: speech
        // intelligibility (STOI) and the noise-suppression score over a speech corpus, and the seeded simulated link.
        .target(name: "CarillonMeasurement", dependencies: ["CarillonCodecs", "CarillonRTC",
                                                            .product(name: "NIOCore", package: "swift-nio")],
                swiftSettings: strict),
        // The ioctls of V4L2 camera capture (linux/videodev2.h from linux-libc-dev), as header-only wrappers.
        .systemLibrary(name: "CCarillonV4L2"),
        .systemLibrary(
            name: "CCarillonALSA",
            pkgConfig: "alsa",
            providers: [.apt(["libasound2-dev"])]
        ),
        // Debian's libwebrtc-audio-processing-dev, for its include path and library (pkg-config); the C++ headers also
        // need the two defines its pkg-config file gives, which SwiftPM does not pass on: the wrapper sets them.
        .systemLibrary(
            name: "CCarillonWebRTCAudioProcessing",
            pkgConfig: "webrtc-audio-processing",
            providers: [.apt(["libwebrtc-audio-processing-dev"])]
        ),
        // The extern "C" wrapper around webrtc-audio-processing's C++ API (echo cancellation, gain control, high-pass).
        .target(
            name: "CCarillonAudioProcessing",
            dependencies: ["CCarillonWebRTCAudioProcessing"],
            cxxSettings: [
                .define("WEBRTC_POSIX"),
                .define("WEBRTC_AUDIO_PROCESSING_ONLY_BUILD"),
            ],
            linkerSettings: [.linkedLibrary("stdc++")]
        ),
        .target(
            name: "CarillonServer",
            dependencies: [
                "CarillonCrypto",
                "CarillonProtocol",
                "CarillonRTC",
                "CarillonCodecs",
                "CarillonMedia",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The guest join page, compiled into the binary (JoinPageFiles): a server is one file to install.
            resources: [
                .embedInCode("JoinPage/join.html"),
                .embedInCode("JoinPage/meeting.css"),
                .embedInCode("JoinPage/meeting.js"),
                .embedInCode("JoinPage/signaling-codec.js"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "Carillon",
            dependencies: [
                "CCarillonALSA",
                "CCarillonXCB",
                "CCarillonAudioProcessing",
                "CCarillonV4L2",
                "CarillonCodecs",
                "CarillonMedia",
                "CarillonProtocol",
                "CarillonRTC",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "carillon",
            dependencies: [
                "Carillon",
                "CarillonCodecs",
                "CarillonControlClient",
                "CarillonMeasurement",
                "CarillonMedia",
                "CarillonRTC",
                "CarillonServer",
                "CarillonProtocol",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict,
            plugins: ["BuildCommit"]
        ),
        .plugin(name: "BuildCommit", capability: .buildTool()),
        .executableTarget(
            name: "CarillonFuzz",
            dependencies: ["CarillonMedia", "CarillonRTC", .product(name: "NIOCore", package: "swift-nio")],
            swiftSettings: strict
        ),
        .testTarget(name: "CarillonProtocolTests", dependencies: ["CarillonCrypto", "CarillonProtocol"], swiftSettings: strict),
        .testTarget(name: "CarillonCLITests", dependencies: ["carillon", "CarillonServer", "CarillonRTC", .product(name: "NIOCore", package: "swift-nio")],
                    swiftSettings: strict),
        .testTarget(
            name: "CarillonRTCTests",
            dependencies: [
                "CarillonRTC", "CarillonCodecs", "CarillonCrypto", "CarillonMeasurement", "CarillonMedia", .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "CarillonCodecsTests", dependencies: ["CarillonCodecs", "CarillonMeasurement"], swiftSettings: strict),
        .testTarget(name: "CarillonServerTests", dependencies: ["CarillonServer", "CarillonCodecs", "CarillonMeasurement", "CarillonMedia",
                                                                 .product(name: "PostgresNIO", package: "postgres-nio")],
                    swiftSettings: strict),
        .testTarget(
            name: "CarillonTests",
            dependencies: ["Carillon", "CarillonMeasurement", "CarillonMedia", .product(name: "NIOEmbedded", package: "swift-nio")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "MeetingSimulationTests",
            dependencies: ["Carillon", "CarillonServer", "CarillonRTC", "CarillonCodecs", "CarillonMeasurement", "CarillonMedia", "CarillonProtocol",
                           .product(name: "NIOCore", package: "swift-nio"), .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "Carillon",
                "CCarillonXCB",
                "CarillonCodecs",
                "CarillonControlClient",
                "CarillonMeasurement",
                "CarillonServer",
                "CarillonProtocol",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strict
        ),
    ]
)
