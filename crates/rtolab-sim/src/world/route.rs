//! A flow's route one way: the link directions its packets cross, in order.

use crate::build::links::Hops;
use crate::net::DirId;
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
