//! Typed indices of the simulator's components, so a flow can never be passed where a link
//! direction or a packet is meant. Each is an index into its owner's `Vec`.

use std::fmt;

macro_rules! index_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name(pub u32);

        impl $name {
            /// Position in the owning `Vec`.
            #[inline]
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.0)
            }
        }
    };
}

index_type!(
    /// A flow (connection) of the run, in the order flows were created.
    FlowId
);
index_type!(
    /// A link direction: link `i` of the scenario owns `2i` (forward) and `2i + 1` (reverse).
    DirId
);
index_type!(
    /// A live packet in the `PacketArena`; recycled after the packet is freed.
    PacketId
);

impl DirId {
    /// The other direction of the same link.
    pub fn opposite(self) -> DirId {
        DirId(self.0 ^ 1)
    }
}

impl FlowId {
    /// The bit that marks a datagram flow's id: datagram flows are numbered apart from TCP's
    /// (`FlowId::datagram`), so a TCP flow's id stays the index of its state, and a packet
    /// says by its id alone which kind of flow it belongs to.
    const DATAGRAM: u32 = 1 << 31;

    /// The id of datagram flow `slot` (its index among the run's datagram flows).
    #[inline]
    pub fn datagram(slot: u32) -> FlowId {
        debug_assert!(slot < Self::DATAGRAM);
        FlowId(slot | Self::DATAGRAM)
    }

    /// Whether this is a datagram flow's id.
    #[inline(always)]
    pub fn is_datagram(self) -> bool {
        self.0 & Self::DATAGRAM != 0
    }

    /// A datagram flow's index among the datagram flows.
    #[inline]
    pub fn slot(self) -> usize {
        debug_assert!(self.is_datagram());
        (self.0 & !Self::DATAGRAM) as usize
    }
}
