extension ControlAPI {
    /// Body of UpdateAttendeeCapabilities and BatchUpdateAttendeeCapabilitiesExcept.
    public struct CapabilitiesRequest: Codable, Sendable, Equatable {
        /// New capabilities (all three required).
        public var capabilities: AttendeeCapabilities?
        /// Attendees left unchanged (batch only, 1-250).
        public var excludedAttendeeIds: [AttendeeIdItem]?

        enum CodingKeys: String, CodingKey {
            case capabilities = "Capabilities"
            case excludedAttendeeIds = "ExcludedAttendeeIds"
        }

        /// Creates a value; every member is optional.
        public init(capabilities: AttendeeCapabilities? = nil, excludedAttendeeIds: [AttendeeIdItem]? = nil) {
            self.capabilities = capabilities
            self.excludedAttendeeIds = excludedAttendeeIds
        }
    }
}
