//! A flow's route: the link directions its packets cross each way, in order, and the mobile
//! user at its end when it reaches the radio network.

use crate::build::links::{add_uplink, Hops};
use crate::net::{DirId, Way};
use std::ops::Deref;

/// Hops a route holds inside the flow itself.
const INLINE: usize = 5;

/// The link directions of a route, first hop first.
///
/// Invariant: a route of at most `INLINE` hops is stored inline, so moving a packet to its
/// next hop reads nothing beyond the flow; a longer one lives on the heap.
#[derive(Clone, Debug)]
pub enum Route {
    Inline { len: u8, dirs: [DirId; INLINE] },
    Heap(Vec<DirId>),
}

impl From<Vec<DirId>> for Route {
    fn from(dirs: Vec<DirId>) -> Self {
        if dirs.len() > INLINE {
            return Route::Heap(dirs);
        }
        let mut inline = [DirId(0); INLINE];
        inline[..dirs.len()].copy_from_slice(&dirs);
        Route::Inline { len: dirs.len() as u8, dirs: inline }
    }
}

impl Deref for Route {
    type Target = [DirId];

    #[inline]
    fn deref(&self) -> &[DirId] {
        match self {
            Route::Inline { len, dirs } => &dirs[..*len as usize],
            Route::Heap(dirs) => dirs,
        }
    }
}

impl Hops for Route {
    /// Puts `dir` before the first hop.
    fn insert_first(&mut self, dir: DirId) {
        let mut dirs = self.to_vec();
        dirs.insert(0, dir);
        *self = Route::from(dirs);
    }
}

/// A flow's route both ways.
///
/// Invariant: `radio_way` matters only with a mobile user (`ue`): packets of that way finish
/// their route at a base station and cross the shared channel to `ue` (data, `Forward`, when
/// the mobile receives; ACKs, `Reverse`, when it sends); every other packet leaves the
/// network when the last direction of its route releases it.
#[derive(Clone, Debug)]
pub struct FlowRoute {
    pub forward: Route,
    pub reverse: Route,
    /// The mobile user at one end of a route into the radio network.
    pub ue: Option<u32>,
    pub radio_way: Way,
}

impl Default for FlowRoute {
    fn default() -> Self {
        FlowRoute::new(Vec::new(), Vec::new())
    }
}

impl FlowRoute {
    /// A route over wired directions only.
    pub fn new(forward: Vec<DirId>, reverse: Vec<DirId>) -> Self {
        FlowRoute { forward: forward.into(), reverse: reverse.into(), ue: None, radio_way: Way::Forward }
    }

    /// The directions of `way`, first hop first.
    #[inline(always)]
    pub fn way(&self, way: Way) -> &[DirId] {
        match way {
            Way::Forward => &self.forward,
            Way::Reverse => &self.reverse,
        }
    }

    /// The flow has mobile user `ue` of the radio network at one end: what the user sends
    /// (ACKs when it receives, data when `sends`) leaves over its own `uplink` before the
    /// rest of the route, and what it receives crosses the shared channel last.
    pub fn reach_mobile(&mut self, ue: u32, uplink: DirId, sends: bool) {
        self.ue = Some(ue);
        self.radio_way = add_uplink(&mut self.forward, &mut self.reverse, uplink, sends);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_long_routes_read_the_same() {
        for n in [0u32, 1, 5, 6, 9] {
            let dirs: Vec<DirId> = (0..n).map(DirId).collect();
            let mut route = Route::from(dirs.clone());
            assert_eq!(&route[..], &dirs[..]);
            route.insert_first(DirId(99));
            assert_eq!(route[0], DirId(99));
            assert_eq!(&route[1..], &dirs[..]);
        }
    }
}
