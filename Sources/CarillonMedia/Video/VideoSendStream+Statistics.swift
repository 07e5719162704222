extension VideoSendStream {
    /// What a ``VideoSendStream`` sent and was asked for since it started sending (``VideoSendStream/statistics``).
    ///
    /// A value; no threading concerns.
    public struct Statistics: Sendable, Equatable {
        /// Pictures given to the stream (above the frame-rate cap included).
        public var framesCaptured = 0
        /// Pictures encoded and sent (on any layer).
        public var framesEncoded = 0
        /// Key frames encoded, over every layer.
        public var keyFramesEncoded = 0
        /// Layer pictures that rate control or the encoder left out.
        public var framesDropped = 0
        /// Media packets that left the pacer (retransmissions and padding not counted).
        public var packetsSent = 0
        /// Their payload bytes.
        public var bytesSent = 0
        /// NACK messages received.
        public var nacksReceived = 0
        /// Sequence numbers those NACKs asked for.
        public var packetsNacked = 0
        /// Retransmissions queued in answer (from the send history; over RTX when negotiated).
        public var retransmissionsQueued = 0
        /// PLIs received.
        public var plisReceived = 0
        /// FIR entries received.
        public var firsReceived = 0

        /// Counters; see the properties.
        public init(framesCaptured: Int = 0, framesEncoded: Int = 0, keyFramesEncoded: Int = 0, framesDropped: Int = 0,
                    packetsSent: Int = 0, bytesSent: Int = 0, nacksReceived: Int = 0, packetsNacked: Int = 0,
                    retransmissionsQueued: Int = 0, plisReceived: Int = 0, firsReceived: Int = 0) {
            self.framesCaptured = framesCaptured
            self.framesEncoded = framesEncoded
            self.keyFramesEncoded = keyFramesEncoded
            self.framesDropped = framesDropped
            self.packetsSent = packetsSent
            self.bytesSent = bytesSent
            self.nacksReceived = nacksReceived
            self.packetsNacked = packetsNacked
            self.retransmissionsQueued = retransmissionsQueued
            self.plisReceived = plisReceived
            self.firsReceived = firsReceived
        }
    }
}
