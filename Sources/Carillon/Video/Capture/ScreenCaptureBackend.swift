/// Where a ``ScreenVideoSource`` reads the screen from. Today an X11 display through XCB and MIT-SHM; a Wayland
/// desktop through the xdg-desktop-portal ScreenCast interface and PipeWire (which needs a session bus, a compositor
/// and the user's consent) would be another case behind the same source. A plain value.
public enum ScreenCaptureBackend: Sendable, Hashable, CustomStringConvertible {
    /// The root window of an X11 display: `display` as `DISPLAY` names it (`":99"`), nil for the `DISPLAY`
    /// environment variable; screen number as the name says, else the display's default.
    case x11(display: String?)

    /// The backend and its display.
    public var description: String {
        switch self {
        case .x11(let display): "x11(\(display ?? "$DISPLAY"))"
        }
    }
}
