/// Offers as real peers write them, for the SessionDescription tests (LF endings here; tests also try CRLF).
enum SDPFixtures {
    /// Chromium (M12x-style) offer: audio with RED first, simulcast camera, content share with RTX, a recvonly video,
    /// a data channel; gathered candidates (UDP, mDNS host, TCP active, srflx) in the first section only.
    static let chromium = """
    v=0
    o=- 4611731400430051336 2 IN IP4 127.0.0.1
    s=-
    t=0 0
    a=group:BUNDLE 0 1 2 3 4
    a=extmap-allow-mixed
    a=msid-semantic: WMS 7a6b9d2c-1f3e-4c5a-9b8d-2e4f6a8c0d1e
    m=audio 50123 UDP/TLS/RTP/SAVPF 63 111 9 0 8 13 110 126
    c=IN IP4 192.0.2.10
    a=rtcp:9 IN IP4 0.0.0.0
    a=candidate:2999745851 1 udp 2122260223 192.0.2.10 50123 typ host generation 0 network-id 1 network-cost 10
    a=candidate:1467250027 1 udp 2122194687 3a1f9c2e-5b7d-4e8a-a0c1-6d2b8f4e9a37.local 53211 typ host generation 0 network-id 2
    a=candidate:4233069003 1 tcp 1518280447 192.0.2.10 9 typ host tcptype active generation 0 network-id 1 network-cost 10
    a=candidate:842163049 1 udp 1686052607 198.51.100.7 50123 typ srflx raddr 192.0.2.10 rport 50123 generation 0 network-id 1 network-cost 10
    a=ice-ufrag:Fq3z
    a=ice-pwd:Vx9sQ3kL8mP2nR7tY4wZ6bC1
    a=ice-options:trickle
    a=fingerprint:sha-256 7B:8B:F0:65:5F:78:E2:51:3B:AC:6F:F3:3F:46:1B:35:DC:B8:5F:64:1A:24:C2:43:F0:A1:58:D0:A1:2C:19:08
    a=setup:actpass
    a=mid:0
    a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
    a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
    a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
    a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
    a=sendrecv
    a=msid:7a6b9d2c-1f3e-4c5a-9b8d-2e4f6a8c0d1e 0c3f2a1e-9d8b-4c7a-b6e5-f4d3c2b1a098
    a=rtcp-mux
    a=rtcp-rsize
    a=rtpmap:63 red/48000/2
    a=fmtp:63 111/111
    a=rtpmap:111 opus/48000/2
    a=rtcp-fb:111 transport-cc
    a=fmtp:111 minptime=10;useinbandfec=1
    a=rtpmap:9 G722/8000
    a=rtpmap:0 PCMU/8000
    a=rtpmap:8 PCMA/8000
    a=rtpmap:13 CN/8000
    a=rtpmap:110 telephone-event/48000
    a=rtpmap:126 telephone-event/8000
    a=ssrc:1001923412 cname:k8Jd2mQ7pX4vR9sT
    a=ssrc:1001923412 msid:7a6b9d2c-1f3e-4c5a-9b8d-2e4f6a8c0d1e 0c3f2a1e-9d8b-4c7a-b6e5-f4d3c2b1a098
    m=video 9 UDP/TLS/RTP/SAVPF 98 99 102 103 96 97 45 46 114 115 116
    c=IN IP4 0.0.0.0
    a=rtcp:9 IN IP4 0.0.0.0
    a=ice-ufrag:Fq3z
    a=ice-pwd:Vx9sQ3kL8mP2nR7tY4wZ6bC1
    a=ice-options:trickle
    a=fingerprint:sha-256 7B:8B:F0:65:5F:78:E2:51:3B:AC:6F:F3:3F:46:1B:35:DC:B8:5F:64:1A:24:C2:43:F0:A1:58:D0:A1:2C:19:08
    a=setup:actpass
    a=mid:1
    a=extmap:14 urn:ietf:params:rtp-hdrext:toffset
    a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
    a=extmap:13 urn:3gpp:video-orientation
    a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
    a=extmap:5 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay
    a=extmap:6 http://www.webrtc.org/experiments/rtp-hdrext/video-content-type
    a=extmap:7 http://www.webrtc.org/experiments/rtp-hdrext/video-timing
    a=extmap:8 http://www.webrtc.org/experiments/rtp-hdrext/color-space
    a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
    a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id
    a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id
    a=extmap:9 http://www.webrtc.org/experiments/rtp-hdrext/video-layers-allocation00
    a=sendrecv
    a=msid:7a6b9d2c-1f3e-4c5a-9b8d-2e4f6a8c0d1e 5e4d3c2b-1a09-4f8e-8d7c-6b5a49382716
    a=rtcp-mux
    a=rtcp-rsize
    a=rtpmap:98 VP9/90000
    a=rtcp-fb:98 goog-remb
    a=rtcp-fb:98 transport-cc
    a=rtcp-fb:98 ccm fir
    a=rtcp-fb:98 nack
    a=rtcp-fb:98 nack pli
    a=fmtp:98 profile-id=0
    a=rtpmap:99 rtx/90000
    a=fmtp:99 apt=98
    a=rtpmap:102 H264/90000
    a=rtcp-fb:102 goog-remb
    a=rtcp-fb:102 transport-cc
    a=rtcp-fb:102 ccm fir
    a=rtcp-fb:102 nack
    a=rtcp-fb:102 nack pli
    a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f
    a=rtpmap:103 rtx/90000
    a=fmtp:103 apt=102
    a=rtpmap:96 VP8/90000
    a=rtcp-fb:96 goog-remb
    a=rtcp-fb:96 transport-cc
    a=rtcp-fb:96 ccm fir
    a=rtcp-fb:96 nack
    a=rtcp-fb:96 nack pli
    a=rtpmap:97 rtx/90000
    a=fmtp:97 apt=96
    a=rtpmap:45 AV1/90000
    a=rtcp-fb:45 goog-remb
    a=rtcp-fb:45 transport-cc
    a=rtcp-fb:45 ccm fir
    a=rtcp-fb:45 nack
    a=rtcp-fb:45 nack pli
    a=fmtp:45 level-idx=5;profile=0;tier=0
    a=rtpmap:46 rtx/90000
    a=fmtp:46 apt=45
    a=rtpmap:114 red/90000
    a=rtpmap:115 rtx/90000
    a=fmtp:115 apt=114
    a=rtpmap:116 ulpfec/90000
    a=rid:low send
    a=rid:mid send
    a=rid:hi send
    a=simulcast:send low;mid;hi
    m=video 9 UDP/TLS/RTP/SAVPF 45 46 98 99 102 103 96 97
    c=IN IP4 0.0.0.0
    a=rtcp:9 IN IP4 0.0.0.0
    a=ice-ufrag:Fq3z
    a=ice-pwd:Vx9sQ3kL8mP2nR7tY4wZ6bC1
    a=ice-options:trickle
    a=fingerprint:sha-256 7B:8B:F0:65:5F:78:E2:51:3B:AC:6F:F3:3F:46:1B:35:DC:B8:5F:64:1A:24:C2:43:F0:A1:58:D0:A1:2C:19:08
    a=setup:actpass
    a=mid:2
    a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
    a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
    a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
    a=extmap:12 https://aomediacodec.github.io/av1-rtp-spec/#dependency-descriptor-rtp-header-extension
    a=sendonly
    a=msid:c0ffee00-1234-4abc-9def-00112233aabb 9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a
    a=rtcp-mux
    a=rtcp-rsize
    a=rtpmap:45 AV1/90000
    a=rtcp-fb:45 goog-remb
    a=rtcp-fb:45 transport-cc
    a=rtcp-fb:45 ccm fir
    a=rtcp-fb:45 nack
    a=rtcp-fb:45 nack pli
    a=fmtp:45 level-idx=5;profile=0;tier=0;x-google-start-bitrate=1000
    a=rtpmap:46 rtx/90000
    a=fmtp:46 apt=45
    a=rtpmap:98 VP9/90000
    a=rtcp-fb:98 goog-remb
    a=rtcp-fb:98 transport-cc
    a=rtcp-fb:98 ccm fir
    a=rtcp-fb:98 nack
    a=rtcp-fb:98 nack pli
    a=fmtp:98 profile-id=0;x-google-start-bitrate=1000
    a=rtpmap:99 rtx/90000
    a=fmtp:99 apt=98
    a=rtpmap:102 H264/90000
    a=rtcp-fb:102 goog-remb
    a=rtcp-fb:102 transport-cc
    a=rtcp-fb:102 ccm fir
    a=rtcp-fb:102 nack
    a=rtcp-fb:102 nack pli
    a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f;x-google-start-bitrate=1000
    a=rtpmap:103 rtx/90000
    a=fmtp:103 apt=102
    a=rtpmap:96 VP8/90000
    a=rtcp-fb:96 goog-remb
    a=rtcp-fb:96 transport-cc
    a=rtcp-fb:96 ccm fir
    a=rtcp-fb:96 nack
    a=rtcp-fb:96 nack pli
    a=fmtp:96 x-google-start-bitrate=1000
    a=rtpmap:97 rtx/90000
    a=fmtp:97 apt=96
    a=ssrc-group:FID 3735928559 2882400001
    a=ssrc:3735928559 cname:k8Jd2mQ7pX4vR9sT
    a=ssrc:3735928559 msid:c0ffee00-1234-4abc-9def-00112233aabb 9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a
    a=ssrc:2882400001 cname:k8Jd2mQ7pX4vR9sT
    a=ssrc:2882400001 msid:c0ffee00-1234-4abc-9def-00112233aabb 9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a
    m=video 9 UDP/TLS/RTP/SAVPF 98 99 102 103 96 97
    c=IN IP4 0.0.0.0
    a=rtcp:9 IN IP4 0.0.0.0
    a=ice-ufrag:Fq3z
    a=ice-pwd:Vx9sQ3kL8mP2nR7tY4wZ6bC1
    a=ice-options:trickle
    a=fingerprint:sha-256 7B:8B:F0:65:5F:78:E2:51:3B:AC:6F:F3:3F:46:1B:35:DC:B8:5F:64:1A:24:C2:43:F0:A1:58:D0:A1:2C:19:08
    a=setup:actpass
    a=mid:3
    a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
    a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
    a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
    a=recvonly
    a=rtcp-mux
    a=rtcp-rsize
    a=rtpmap:98 VP9/90000
    a=rtcp-fb:98 goog-remb
    a=rtcp-fb:98 transport-cc
    a=rtcp-fb:98 ccm fir
    a=rtcp-fb:98 nack
    a=rtcp-fb:98 nack pli
    a=fmtp:98 profile-id=0
    a=rtpmap:99 rtx/90000
    a=fmtp:99 apt=98
    a=rtpmap:102 H264/90000
    a=rtcp-fb:102 goog-remb
    a=rtcp-fb:102 transport-cc
    a=rtcp-fb:102 ccm fir
    a=rtcp-fb:102 nack
    a=rtcp-fb:102 nack pli
    a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
    a=rtpmap:103 rtx/90000
    a=fmtp:103 apt=102
    a=rtpmap:96 VP8/90000
    a=rtcp-fb:96 goog-remb
    a=rtcp-fb:96 transport-cc
    a=rtcp-fb:96 ccm fir
    a=rtcp-fb:96 nack
    a=rtcp-fb:96 nack pli
    a=rtpmap:97 rtx/90000
    a=fmtp:97 apt=96
    m=application 9 UDP/DTLS/SCTP webrtc-datachannel
    c=IN IP4 0.0.0.0
    a=ice-ufrag:Fq3z
    a=ice-pwd:Vx9sQ3kL8mP2nR7tY4wZ6bC1
    a=ice-options:trickle
    a=fingerprint:sha-256 7B:8B:F0:65:5F:78:E2:51:3B:AC:6F:F3:3F:46:1B:35:DC:B8:5F:64:1A:24:C2:43:F0:A1:58:D0:A1:2C:19:08
    a=setup:actpass
    a=mid:4
    a=sctp-port:5000
    a=max-message-size:262144

    """

    /// aiortc (1.x) offer: c= with the host address, candidates after the codecs (no ufrag extension), credentials,
    /// fingerprint and setup at the end of each section, ssrc cname lines, `WMS *`.
    static let aiortc = """
    v=0
    o=- 3913224373 3913224373 IN IP4 0.0.0.0
    s=-
    t=0 0
    a=group:BUNDLE 0 1
    a=msid-semantic:WMS *
    m=audio 54321 UDP/TLS/RTP/SAVPF 96 0 8
    c=IN IP4 192.168.1.23
    a=sendrecv
    a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid
    a=extmap:2 urn:ietf:params:rtp-hdrext:ssrc-audio-level
    a=mid:0
    a=msid:8c3e0f0a-4b1d-4d2e-9a7f-5c6b7a8d9e0f 2b6d4f8a-1c3e-4a5b-8d7c-9e0f1a2b3c4d
    a=rtcp:9 IN IP4 0.0.0.0
    a=rtcp-mux
    a=ssrc:2865134731 cname:0a3b7c1e-9f2d-4e6a-8b5c-1d7e3f9a2c4b
    a=rtpmap:96 opus/48000/2
    a=rtpmap:0 PCMU/8000
    a=rtpmap:8 PCMA/8000
    a=candidate:6e2e7b1b7a8a4c0f1a9b3d5e7f2c4a6b 1 udp 2130706431 192.168.1.23 54321 typ host
    a=candidate:0c1f9e4d2b7a6c5e8d3f1a0b9c8e7d6f 1 udp 1694498815 203.0.113.45 54321 typ srflx raddr 192.168.1.23 rport 54321
    a=end-of-candidates
    a=ice-ufrag:Yk7q
    a=ice-pwd:3Hh9Qm2Vx8ZpL4tN6rB1cD5e
    a=fingerprint:sha-256 1C:6E:0B:9A:3D:44:F2:87:65:AB:CD:EF:01:23:45:67:89:9A:BC:DE:F0:11:22:33:44:55:66:77:88:99:AA:BB
    a=setup:actpass
    m=video 54321 UDP/TLS/RTP/SAVPF 97 98 99 100 101 102
    c=IN IP4 192.168.1.23
    a=sendrecv
    a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid
    a=extmap:3 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
    a=mid:1
    a=msid:8c3e0f0a-4b1d-4d2e-9a7f-5c6b7a8d9e0f 7d9e1f3a-5b7c-4d9e-a1b3-c5d7e9f1a3b5
    a=rtcp:9 IN IP4 0.0.0.0
    a=rtcp-mux
    a=ssrc-group:FID 1442917286 3298347029
    a=ssrc:1442917286 cname:0a3b7c1e-9f2d-4e6a-8b5c-1d7e3f9a2c4b
    a=ssrc:3298347029 cname:0a3b7c1e-9f2d-4e6a-8b5c-1d7e3f9a2c4b
    a=rtpmap:97 VP8/90000
    a=rtcp-fb:97 nack
    a=rtcp-fb:97 nack pli
    a=rtcp-fb:97 goog-remb
    a=rtpmap:98 rtx/90000
    a=fmtp:98 apt=97
    a=rtpmap:99 H264/90000
    a=rtcp-fb:99 nack
    a=rtcp-fb:99 nack pli
    a=rtcp-fb:99 goog-remb
    a=fmtp:99 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f
    a=rtpmap:100 rtx/90000
    a=fmtp:100 apt=99
    a=rtpmap:101 H264/90000
    a=rtcp-fb:101 nack
    a=rtcp-fb:101 nack pli
    a=rtcp-fb:101 goog-remb
    a=fmtp:101 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
    a=rtpmap:102 rtx/90000
    a=fmtp:102 apt=101
    a=candidate:6e2e7b1b7a8a4c0f1a9b3d5e7f2c4a6b 1 udp 2130706431 192.168.1.23 54321 typ host
    a=candidate:0c1f9e4d2b7a6c5e8d3f1a0b9c8e7d6f 1 udp 1694498815 203.0.113.45 54321 typ srflx raddr 192.168.1.23 rport 54321
    a=end-of-candidates
    a=ice-ufrag:Yk7q
    a=ice-pwd:3Hh9Qm2Vx8ZpL4tN6rB1cD5e
    a=fingerprint:sha-256 1C:6E:0B:9A:3D:44:F2:87:65:AB:CD:EF:01:23:45:67:89:9A:BC:DE:F0:11:22:33:44:55:66:77:88:99:AA:BB
    a=setup:actpass

    """

    /// Firefox (1xx) offer: session-level fingerprint and ice-options, attributes sorted by name, fmtp before rtpmap,
    /// extmap direction restrictions, uppercase candidate transports, end-of-candidates.
    static let firefox = """
    v=0
    o=mozilla...THIS_IS_SDPARTA-128.0 6549003437442366839 0 IN IP4 0.0.0.0
    s=-
    t=0 0
    a=fingerprint:sha-256 2E:4B:81:77:1A:C8:93:5D:0F:66:EA:21:9C:B4:7E:30:D5:12:48:AF:6B:C0:3E:97:58:14:FD:A2:89:0C:E6:71
    a=group:BUNDLE 0 1 2
    a=ice-options:trickle
    a=msid-semantic:WMS *
    m=audio 49203 UDP/TLS/RTP/SAVPF 109 9 0 8 101
    c=IN IP4 198.51.100.20
    a=candidate:0 1 UDP 2122252543 198.51.100.20 49203 typ host
    a=candidate:2 1 TCP 2105524479 198.51.100.20 9 typ host tcptype active
    a=candidate:1 1 UDP 1686052863 203.0.113.9 49203 typ srflx raddr 198.51.100.20 rport 49203
    a=sendrecv
    a=end-of-candidates
    a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
    a=extmap:2/recvonly urn:ietf:params:rtp-hdrext:csrc-audio-level
    a=extmap:3 urn:ietf:params:rtp-hdrext:sdes:mid
    a=fmtp:109 maxplaybackrate=48000;stereo=1;useinbandfec=1
    a=fmtp:101 0-15
    a=ice-pwd:e0f4a5b1c2d3e4f5a6b7c8d9e0f1a2b3
    a=ice-ufrag:7d1a2b3c
    a=mid:0
    a=msid:{5a0e6b2c-7d8f-4e1a-9b3c-2d4e6f8a0b1c} {a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d}
    a=rtcp-mux
    a=rtpmap:109 opus/48000/2
    a=rtpmap:9 G722/8000/1
    a=rtpmap:0 PCMU/8000
    a=rtpmap:8 PCMA/8000
    a=rtpmap:101 telephone-event/8000/1
    a=setup:actpass
    a=ssrc:3167234589 cname:{0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0}
    m=video 9 UDP/TLS/RTP/SAVPF 120 124 121 125 126 127 97 98
    c=IN IP4 0.0.0.0
    a=sendrecv
    a=extmap:3 urn:ietf:params:rtp-hdrext:sdes:mid
    a=extmap:4 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
    a=extmap:5 urn:ietf:params:rtp-hdrext:toffset
    a=extmap:6/sendonly http://www.webrtc.org/experiments/rtp-hdrext/playout-delay
    a=extmap:7 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
    a=fmtp:126 profile-level-id=42e01f;level-asymmetry-allowed=1;packetization-mode=1
    a=fmtp:97 profile-level-id=42e01f;level-asymmetry-allowed=1
    a=fmtp:120 max-fs=12288;max-fr=60
    a=fmtp:124 apt=120
    a=fmtp:121 max-fs=12288;max-fr=60
    a=fmtp:125 apt=121
    a=fmtp:127 apt=126
    a=fmtp:98 apt=97
    a=ice-pwd:e0f4a5b1c2d3e4f5a6b7c8d9e0f1a2b3
    a=ice-ufrag:7d1a2b3c
    a=mid:1
    a=msid:{5a0e6b2c-7d8f-4e1a-9b3c-2d4e6f8a0b1c} {b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e}
    a=rtcp-fb:120 nack
    a=rtcp-fb:120 nack pli
    a=rtcp-fb:120 ccm fir
    a=rtcp-fb:120 goog-remb
    a=rtcp-fb:120 transport-cc
    a=rtcp-fb:121 nack
    a=rtcp-fb:121 nack pli
    a=rtcp-fb:121 ccm fir
    a=rtcp-fb:121 goog-remb
    a=rtcp-fb:121 transport-cc
    a=rtcp-fb:126 nack
    a=rtcp-fb:126 nack pli
    a=rtcp-fb:126 ccm fir
    a=rtcp-fb:126 goog-remb
    a=rtcp-fb:126 transport-cc
    a=rtcp-fb:97 nack
    a=rtcp-fb:97 nack pli
    a=rtcp-fb:97 ccm fir
    a=rtcp-fb:97 goog-remb
    a=rtcp-fb:97 transport-cc
    a=rtcp-mux
    a=rtcp-rsize
    a=rtpmap:120 VP8/90000
    a=rtpmap:124 rtx/90000
    a=rtpmap:121 VP9/90000
    a=rtpmap:125 rtx/90000
    a=rtpmap:126 H264/90000
    a=rtpmap:127 rtx/90000
    a=rtpmap:97 H264/90000
    a=rtpmap:98 rtx/90000
    a=setup:actpass
    a=ssrc:2389455281 cname:{0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0}
    a=ssrc:1953427710 cname:{0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0}
    a=ssrc-group:FID 2389455281 1953427710
    m=application 9 UDP/DTLS/SCTP webrtc-datachannel
    c=IN IP4 0.0.0.0
    a=sendrecv
    a=ice-pwd:e0f4a5b1c2d3e4f5a6b7c8d9e0f1a2b3
    a=ice-ufrag:7d1a2b3c
    a=mid:2
    a=setup:actpass
    a=sctp-port:5000
    a=max-message-size:1073741823

    """

    /// All three, for loops.
    static let all = [chromium, aiortc, firefox]

    /// The text with CRLF line endings.
    static func crlf(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n")
    }
}
