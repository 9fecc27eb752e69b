//! The speech codecs a voice call can use, with their packetisation and E-model factors.
//!
//! Every codec here sends one RTP packet per 20 ms speech frame, one frame per packet. Sizes
//! are what the packet carries above UDP: `payload_bytes` is the RTP payload, and
//! `datagram_payload_bytes` adds the 12-byte RTP header. The network layer adds UDP (8 bytes)
//! and IPv4 (20 bytes), so a packet is `datagram_payload_bytes() + 28` bytes on the wire.

use crate::time::SimDuration;
use schemars::JsonSchema;
use serde::Deserialize;

/// The fixed RTP header without CSRCs or extensions: 12 bytes (RFC 3550 §5.1, V/P/X/CC/M/PT,
/// sequence number, timestamp, SSRC).
pub const RTP_HEADER_BYTES: u32 = 12;

/// A narrowband speech codec, as the scenario names it ("g711", "amr-12.2").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
pub enum Codec {
    /// ITU-T G.711 PCM at 64 kbit/s (μ-law or A-law: the same size and factors), 20 ms per
    /// packet, with the packet loss concealment of G.711 Appendix I at the receiver.
    #[default]
    #[serde(rename = "g711")]
    G711,
    /// 3GPP AMR narrowband in its 12.2 kbit/s mode (3GPP TS 26.071, TS 26.090), one 20 ms
    /// frame per packet in the octet-aligned RTP payload format of RFC 4867.
    #[serde(rename = "amr-12.2")]
    Amr122,
}

impl Codec {
    /// The name a scenario uses for this codec.
    pub const fn name(self) -> &'static str {
        match self {
            Codec::G711 => "g711",
            Codec::Amr122 => "amr-12.2",
        }
    }

    /// Speech time carried by one packet: 20 ms for both. G.711 is sample-based; RFC 3551
    /// §4.5.14 (PCMU/PCMA) gives 20 ms as the default packetisation (ptime). AMR codes speech
    /// in 20 ms frames (3GPP TS 26.071, TS 26.090), and one frame goes in each packet.
    pub const fn frame_interval(self) -> SimDuration {
        SimDuration::from_millis(20)
    }

    /// RTP payload bytes of one packet.
    ///
    /// - G.711: 8 000 samples/s × 8 bits = 64 kbit/s, so 20 ms is 160 one-byte samples
    ///   (RFC 3551 §4.5.14).
    /// - AMR 12.2: a frame has 244 speech bits (3GPP TS 26.090, bit allocation of the
    ///   12.2 kbit/s mode; TS 26.101, bits per frame type). The octet-aligned format of RFC 4867 §4.4 puts a
    ///   payload header of one byte (4-bit CMR and 4 reserved bits, §4.4.1), one 1-byte
    ///   table-of-contents entry per frame (§4.4.2), then each frame padded to whole octets
    ///   (§4.4.3): 244 bits → 31 bytes. 1 + 1 + 31 = 33 bytes.
    pub const fn payload_bytes(self) -> u32 {
        match self {
            Codec::G711 => 160,
            Codec::Amr122 => 1 + 1 + 244_u32.div_ceil(8),
        }
    }

    /// What one UDP datagram carries: the RTP header and the payload (172 bytes for G.711,
    /// 45 for AMR 12.2). The wire size adds UDP and IPv4 headers, 28 bytes, in the network
    /// layer.
    pub const fn datagram_payload_bytes(self) -> u32 {
        RTP_HEADER_BYTES + self.payload_bytes()
    }

    /// Equipment impairment factor Ie, ITU-T G.113 Appendix I (provisional planning values;
    /// Table I.3, which lists Ie with Bpl): G.711 0, AMR 12.2 5 (the value G.113 gives the
    /// 12.2 kbit/s ACELP of GSM-EFR, which the AMR 12.2 mode is bit-exact with).
    pub const fn ie(self) -> f64 {
        match self {
            Codec::G711 => 0.0,
            Codec::Amr122 => 5.0,
        }
    }

    /// Packet-loss robustness factor Bpl for random loss, ITU-T G.113 Appendix I Table I.3.
    ///
    /// G.711: 25.1, the value with the packet loss concealment of G.711 Appendix I. rtolab
    /// assumes every receiver conceals lost packets (any VoIP receiver does); G.711 without
    /// concealment has a much smaller Bpl, about six times the impairment per percent of
    /// loss. AMR 12.2: 10 (G.113's GSM-EFR row; AMR's own frame substitution, 3GPP TS 26.091,
    /// conceals the lost frames).
    pub const fn bpl(self) -> f64 {
        match self {
            Codec::G711 => 25.1,
            Codec::Amr122 => 10.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 3551 §4.5.14: 160 bytes of G.711 per 20 ms; RFC 3550 §5.1: 12-byte header.
    #[test]
    fn g711_sizes() {
        assert_eq!(Codec::G711.payload_bytes(), 160);
        assert_eq!(Codec::G711.datagram_payload_bytes(), 172);
        assert_eq!(Codec::G711.frame_interval(), SimDuration::from_millis(20));
    }

    /// RFC 4867 §4.4 octet-aligned: 1 (CMR) + 1 (ToC) + ceil(244/8) = 33, plus 12 of RTP.
    #[test]
    fn amr_sizes() {
        assert_eq!(Codec::Amr122.payload_bytes(), 33);
        assert_eq!(Codec::Amr122.datagram_payload_bytes(), 45);
        assert_eq!(Codec::Amr122.frame_interval(), SimDuration::from_millis(20));
    }

    /// One packet per 20 ms with 28 bytes of UDP/IPv4: G.711 (172 + 28)·8/0.02 = 80 000
    /// bit/s; AMR 12.2 (45 + 28)·8/0.02 = 29 200 bit/s.
    #[test]
    fn wire_bit_rates() {
        let rate = |c: Codec| (c.datagram_payload_bytes() + 28) as f64 * 8.0 / c.frame_interval().as_secs_f64();
        assert!((rate(Codec::G711) - 80_000.0).abs() < 1e-6);
        assert!((rate(Codec::Amr122) - 29_200.0).abs() < 1e-6);
    }

    /// The user-facing names, both ways, and no other spelling.
    #[test]
    fn names_round_trip_through_serde() {
        for c in [Codec::G711, Codec::Amr122] {
            let parsed: Codec = serde_json::from_str(&format!("\"{}\"", c.name())).unwrap();
            assert_eq!(parsed, c);
        }
        assert!(serde_json::from_str::<Codec>("\"amr122\"").is_err());
        assert!(serde_json::from_str::<Codec>("\"G711\"").is_err());
        assert_eq!(Codec::default(), Codec::G711);
    }

    /// G.113 Appendix I values as stated in the doc comments.
    #[test]
    fn impairment_factors() {
        assert_eq!((Codec::G711.ie(), Codec::G711.bpl()), (0.0, 25.1));
        assert_eq!((Codec::Amr122.ie(), Codec::Amr122.bpl()), (5.0, 10.0));
    }
}
