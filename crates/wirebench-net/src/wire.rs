//! Bytes on the wire: per-message protocol overhead (MQTT, MQTT-SN, CoAP, HTTP/1.1) and
//! transport overhead (TCP/UDP over IPv4/IPv6), and the request ceiling of a rate-limited link.
//! Every constant names its source (spec `links-and-transports.md` §1.7 and §4.1).

use serde::{Deserialize, Serialize};

/// Ethernet header counted by tc and veth counters (spec §1.7).
pub const ETHERNET_HEADER: usize = 14;
/// What a real 802.3 wire adds on top of the 14 B header: FCS 4 + preamble 8 + inter-frame gap
/// 12 (IEEE 802.3; spec §4.1). tc/veth do not count these.
pub const ETHERNET_WIRE_EXTRA: usize = 24;
/// IPv4 header without options (RFC 791).
pub const IPV4_HEADER: usize = 20;
/// IPv6 fixed header (RFC 8200).
pub const IPV6_HEADER: usize = 40;
/// TCP header without options (RFC 9293).
pub const TCP_HEADER: usize = 20;
/// TCP timestamp option as Linux sends it by default (10 B + 2 NOP), spec §1.7.
pub const TCP_TIMESTAMPS: usize = 12;
/// UDP header (RFC 768).
pub const UDP_HEADER: usize = 8;
/// Bytes per TCP/IPv4 segment on a veth incl. Ethernet (14 + 20 + 20 + 12), measured in spec §1.7.
pub const TCP_SEGMENT_OVERHEAD_VETH: usize = ETHERNET_HEADER + IPV4_HEADER + TCP_HEADER + TCP_TIMESTAMPS;
/// TCP payload per segment at MTU 1,500 with timestamps (spec §1.2: 1,448).
pub const MSS_1500: usize = 1500 - IPV4_HEADER - TCP_HEADER - TCP_TIMESTAMPS;
/// wrk's request line + headers for a POST to `http://10.250.0.2:8080/ingest` (spec §1.2: 102 B).
pub const WRK_REQUEST_HEADER: usize = 102;

/// An application protocol around an encoded payload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "protocol", rename_all = "kebab-case")]
pub enum Protocol {
    /// The payload alone (length-prefixed framing is counted by the caller).
    Raw,
    /// MQTT 3.1.1 PUBLISH: fixed header 1 + remaining length 1–4, topic length 2 + topic,
    /// packet id 2 for QoS ≥ 1 (OASIS MQTT 3.1.1 §2.2, §3.3; spec §4.1).
    Mqtt311 { topic_len: usize, qos: u8 },
    /// MQTT 5.0 PUBLISH: as 3.1.1 plus the property length (1–4 B) and the properties
    /// (OASIS MQTT 5.0 §3.3.2.3; spec §4.1).
    Mqtt5 { topic_len: usize, qos: u8, properties_len: usize },
    /// MQTT-SN 1.2 PUBLISH: Length 1 (3 above 255 B), MsgType 1, Flags 1, TopicId 2, MsgId 2
    /// (MQTT-SN v1.2 §5.4.12; spec §4.1).
    MqttSn,
    /// CoAP (RFC 7252 §3): 4 B header + token + options + 1 B payload marker (when a payload
    /// follows).
    Coap { token_len: usize, options_len: usize },
    /// HTTP/1.1 POST: request line + headers (wrk sends 102 B, spec §1.2).
    Http11 { header_bytes: usize },
}

/// The transport under the protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Transport {
    /// IPv4 20 + TCP 20 + timestamps 12 = 52 B per segment (spec §4.1).
    TcpIpv4,
    /// IPv6 40 + TCP 20 + timestamps 12 = 72 B per segment.
    TcpIpv6,
    /// IPv4 20 + UDP 8 = 28 B per datagram (RFC 768 / RFC 791).
    UdpIpv4,
    /// IPv6 40 + UDP 8 = 48 B per datagram.
    UdpIpv6,
}

impl Transport {
    /// Header bytes per packet (no link layer).
    pub fn per_packet(self) -> usize {
        match self {
            Transport::TcpIpv4 => IPV4_HEADER + TCP_HEADER + TCP_TIMESTAMPS,
            Transport::TcpIpv6 => IPV6_HEADER + TCP_HEADER + TCP_TIMESTAMPS,
            Transport::UdpIpv4 => IPV4_HEADER + UDP_HEADER,
            Transport::UdpIpv6 => IPV6_HEADER + UDP_HEADER,
        }
    }

    /// Payload bytes in one unfragmented packet at IP MTU `mtu` (TCP: the MSS, 1,448 at 1,500).
    pub fn payload_per_packet(self, mtu: usize) -> usize {
        mtu.saturating_sub(self.per_packet())
    }
}

/// Bytes of an MQTT remaining-length field for `n` (OASIS MQTT 3.1.1 §2.2.3).
pub fn mqtt_varint_len(n: usize) -> usize {
    match n {
        0..=127 => 1,
        128..=16_383 => 2,
        16_384..=2_097_151 => 3,
        _ => 4,
    }
}

impl Protocol {
    /// Bytes the protocol adds to a payload of `payload` bytes.
    pub fn overhead(&self, payload: usize) -> usize {
        match *self {
            Protocol::Raw => 0,
            Protocol::Mqtt311 { topic_len, qos } => {
                let rl = 2 + topic_len + payload + if qos > 0 { 2 } else { 0 };
                1 + mqtt_varint_len(rl) + rl - payload
            }
            Protocol::Mqtt5 { topic_len, qos, properties_len } => {
                let rl = 2
                    + topic_len
                    + if qos > 0 { 2 } else { 0 }
                    + mqtt_varint_len(properties_len)
                    + properties_len
                    + payload;
                1 + mqtt_varint_len(rl) + rl - payload
            }
            Protocol::MqttSn => {
                // Length counts the whole message; 1 B up to 255, else 0x01 + 2 B.
                if 7 + payload <= 255 {
                    7
                } else {
                    9
                }
            }
            Protocol::Coap { token_len, options_len } => 4 + token_len.min(8) + options_len + usize::from(payload > 0),
            Protocol::Http11 { header_bytes } => header_bytes,
        }
    }

    /// The acknowledgement a receiver sends back at this layer, if any: PUBACK 4 B (MQTT QoS 1,
    /// §3.4), MQTT-SN PUBACK 7 B, none for QoS 0 / CoAP NON / HTTP (the response is separate).
    pub fn ack_bytes(&self) -> usize {
        match *self {
            Protocol::Mqtt311 { qos, .. } | Protocol::Mqtt5 { qos, .. } if qos > 0 => 4,
            Protocol::MqttSn => 7,
            _ => 0,
        }
    }
}

/// One message on the wire.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WireBytes {
    pub payload: usize,
    /// Payload + protocol overhead.
    pub app_bytes: usize,
    /// TCP segments / UDP fragments needed.
    pub packets: usize,
    /// app_bytes + transport headers (IP layer).
    pub ip_bytes: usize,
    /// ip_bytes + 14 B Ethernet per packet (what tc/veth count).
    pub veth_bytes: usize,
    /// veth_bytes + 24 B per packet (FCS, preamble, inter-frame gap) on real Ethernet.
    pub ethernet_wire_bytes: usize,
}

/// The bytes one message of `payload` bytes costs through `protocol` over `transport` at IP MTU `mtu`
/// (TCP: assuming it is sent in its own segments, NODELAY, no coalescing).
pub fn message_bytes(protocol: &Protocol, transport: Transport, payload: usize, mtu: usize) -> WireBytes {
    let app = payload + protocol.overhead(payload);
    let per = transport.payload_per_packet(mtu).max(1);
    let packets = match transport {
        // IP fragments each carry mtu − IP header bytes of the UDP datagram (header included).
        Transport::UdpIpv4 | Transport::UdpIpv6 => {
            (app + UDP_HEADER).div_ceil(mtu.saturating_sub(transport.per_packet() - UDP_HEADER).max(1)).max(1)
        }
        _ => app.div_ceil(per).max(1),
    };
    let ip = match transport {
        // One UDP header per datagram, one IP header per fragment.
        Transport::UdpIpv4 | Transport::UdpIpv6 => app + UDP_HEADER + packets * (transport.per_packet() - UDP_HEADER),
        _ => app + packets * transport.per_packet(),
    };
    WireBytes {
        payload,
        app_bytes: app,
        packets,
        ip_bytes: ip,
        veth_bytes: ip + packets * ETHERNET_HEADER,
        ethernet_wire_bytes: ip + packets * (ETHERNET_HEADER + ETHERNET_WIRE_EXTRA),
    }
}

/// The request ceiling of a link (spec §1.2): requests/s = rate / 8 / (body + header +
/// 66 · ⌈(body + header) / 1448⌉), i.e. the request direction's L2 bytes as tc counts them.
pub fn http_request_ceiling(rate_bps: u64, body_bytes: usize, header_bytes: usize) -> f64 {
    let req = body_bytes + header_bytes;
    let wire = req + TCP_SEGMENT_OVERHEAD_VETH * req.div_ceil(MSS_1500).max(1);
    rate_bps as f64 / 8.0 / wire as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ceilings_match_spec_table() {
        // spec §1.4 "link ceiling req/s" column (wrk header 102 B).
        for (mbit, body, want) in [
            (1u64, 1024usize, 104.9),
            (1, 10_240, 11.5),
            (1, 50, 574.0),
            (5, 1024, 524.3),
            (10, 1024, 1_049.0),
            (50, 1024, 5_243.0),
            (50, 50, 28_670.0),
            (100, 1024, 10_487.0),
            (500, 1024, 52_433.0),
            (500, 10_240, 5_750.0),
            (1000, 1024, 104_866.0),
        ] {
            let got = http_request_ceiling(mbit * 1_000_000, body, WRK_REQUEST_HEADER);
            assert!((got / want - 1.0).abs() < 0.003, "{mbit} Mbit {body} B: {got} vs {want}");
        }
    }

    #[test]
    fn overheads_match_spec() {
        // spec §1.7: MQTT 3.1.1 QoS1 topic "t/ev", 50 B → 50 + 10 MQTT; PUBACK 4.
        let m = Protocol::Mqtt311 { topic_len: 4, qos: 1 };
        assert_eq!(m.overhead(50), 10);
        assert_eq!(m.ack_bytes(), 4);
        // … and 126 B per message on the veth (50 + 10 + 66).
        assert_eq!(message_bytes(&m, Transport::TcpIpv4, 50, 1500).veth_bytes, 126);
        assert_eq!(message_bytes(&m, Transport::TcpIpv4, 400, 1500).veth_bytes, 477);
        // QoS 0: payload + 8 + 66 (spec §1.7 last line).
        assert_eq!(Protocol::Mqtt311 { topic_len: 4, qos: 0 }.overhead(50), 8);
        // Remaining length grows to 2 bytes at 128.
        assert_eq!(Protocol::Mqtt311 { topic_len: 4, qos: 0 }.overhead(200), 9);
        assert_eq!(Protocol::MqttSn.overhead(50), 7);
        assert_eq!(Protocol::MqttSn.overhead(300), 9);
        assert_eq!(Protocol::Coap { token_len: 2, options_len: 6 }.overhead(10), 13);
        assert_eq!(Protocol::Coap { token_len: 0, options_len: 0 }.overhead(0), 4);
        assert_eq!(Protocol::Mqtt5 { topic_len: 4, qos: 0, properties_len: 0 }.overhead(50), 9);
        // Raw TCP echo 50 B: 116 B on the veth per direction (spec §1.7).
        assert_eq!(message_bytes(&Protocol::Raw, Transport::TcpIpv4, 50, 1500).veth_bytes, 116);
        // 3,000 B over TCP: 3 segments.
        assert_eq!(message_bytes(&Protocol::Raw, Transport::TcpIpv4, 3000, 1500).packets, 3);
        assert_eq!(message_bytes(&Protocol::Raw, Transport::UdpIpv4, 100, 1500).ip_bytes, 128);
        assert_eq!(message_bytes(&Protocol::Raw, Transport::UdpIpv6, 100, 1500).ip_bytes, 148);
        assert_eq!(message_bytes(&Protocol::Raw, Transport::UdpIpv4, 1472, 1500).packets, 1);
        assert_eq!(message_bytes(&Protocol::Raw, Transport::UdpIpv4, 1473, 1500).packets, 2);
        assert_eq!(message_bytes(&Protocol::Raw, Transport::TcpIpv6, 10, 1500).ip_bytes, 82);
    }
}
