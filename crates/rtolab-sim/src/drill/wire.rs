//! A TCP segment as it is on the wire, in packetdrill's terms: flags, sequence and
//! acknowledgment numbers relative to each side's ISN, the window field as sent (before
//! scaling) and the options in their order.

/// TCP header flags (RFC 9293 3.1).
pub const FIN: u8 = 0x01;
pub const SYN: u8 = 0x02;
pub const RST: u8 = 0x04;
pub const PSH: u8 = 0x08;
pub const ACK: u8 = 0x10;

/// One TCP option (RFC 9293 3.2; MSS, RFC 9293 3.7.1; SACK-permitted and SACK, RFC 2018;
/// window scale and timestamps, RFC 7323).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WireOption {
    Eol,
    Nop,
    Mss(u16),
    WindowScale(u8),
    SackPermitted,
    /// SACK blocks [start, end), relative sequence numbers.
    Sack(Vec<(u32, u32)>),
    /// TSval and TSecr, in ticks of the sender's timestamp clock.
    Timestamp { val: u32, ecr: u32 },
}

/// One segment: `seq` is the first sequence number it occupies (the SYN's own, or its first
/// data byte's), `len` its payload bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WireSegment {
    pub flags: u8,
    pub seq: u32,
    pub ack: u32,
    pub win: u16,
    pub len: u32,
    pub options: Vec<WireOption>,
}

impl WireSegment {
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    pub fn mss(&self) -> Option<u16> {
        self.options.iter().find_map(|o| if let WireOption::Mss(m) = o { Some(*m) } else { None })
    }

    pub fn window_scale(&self) -> Option<u8> {
        self.options.iter().find_map(|o| if let WireOption::WindowScale(w) = o { Some(*w) } else { None })
    }

    pub fn sack_permitted(&self) -> bool {
        self.options.contains(&WireOption::SackPermitted)
    }

    pub fn timestamp(&self) -> Option<(u32, u32)> {
        self.options.iter().find_map(|o| if let WireOption::Timestamp { val, ecr } = o { Some((*val, *ecr)) } else { None })
    }

    pub fn sack_blocks(&self) -> &[(u32, u32)] {
        self.options.iter().find_map(|o| if let WireOption::Sack(b) = o { Some(b.as_slice()) } else { None }).unwrap_or(&[])
    }
}
