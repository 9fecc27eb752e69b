//! Hexagonal cell layout with wrap-around.
//!
//! Cells are regular hexagons of centre-to-vertex radius R with an omnidirectional base
//! station at each centre, so adjacent base stations are d = √3·R apart. Centres lie on the
//! lattice spanned by a1 = d·(1, 0) and a2 = d·(1/2, √3/2); a cell's axial coordinates (q, r)
//! put it at q·a1 + r·a2. Cell 0 is at the origin, then ring 1 (6 cells), then ring 2 (12
//! cells), each ring counter-clockwise from the positive x axis.
//!
//! Wrap-around: a cluster of N = i² + i·j + j² cells tiles the plane by translation
//! (MacDonald, "The cellular concept", Bell System Technical Journal 58(1), 1979). The
//! translations form the lattice spanned by T1 = i·a1 + j·a2 and T2 = T1 rotated by 60°
//! = −j·a1 + (i + j)·a2 (rotating a1 by 60° gives a2, rotating a2 gives a2 − a1). Both have
//! length √N·d and span a parallelogram of area N·(√3/2)·d², which is N hexagon areas. A
//! centre plus k full rings has N = 3k² + 3k + 1 = i² + i·j + j² with (i, j) = (k + 1, k):
//! N = 1 is (1, 0), N = 7 is (2, 1), N = 19 is (3, 2) (the SEAMCAT handbook, Sec. 7.6.3,
//! uses the same i = 3, j = 2 for its 19-cell wrap-around). Every point of the plane is
//! mapped to its image inside the cluster, so every cell sees a full ring of interferers.
//!
//! Invariants: `wrap` is idempotent and lands in the hexagon of its nearest centre; the
//! wrap-around distance from any point to any base station is at most √N·R (the covering
//! radius |T1|/√3 of the translation lattice); every point is within R of its nearest one.

use rand::Rng;
use std::ops::{Add, Mul, Sub};

/// A position in the plane, in metres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

impl Point {
    pub const ORIGIN: Point = Point { x: 0.0, y: 0.0 };

    pub fn new(x: f64, y: f64) -> Point {
        Point { x, y }
    }

    /// Euclidean length of the vector from the origin.
    pub fn norm(self) -> f64 {
        self.x.hypot(self.y)
    }

    /// Euclidean distance, in metres.
    pub fn distance(self, other: Point) -> f64 {
        (self - other).norm()
    }
}

impl Add for Point {
    type Output = Point;
    fn add(self, o: Point) -> Point {
        Point::new(self.x + o.x, self.y + o.y)
    }
}

impl Sub for Point {
    type Output = Point;
    fn sub(self, o: Point) -> Point {
        Point::new(self.x - o.x, self.y - o.y)
    }
}

impl Mul<f64> for Point {
    type Output = Point;
    fn mul(self, k: f64) -> Point {
        Point::new(self.x * k, self.y * k)
    }
}

/// Axial lattice coordinates (q, r): the point q·a1 + r·a2.
type Axial = (i64, i64);

/// The six unit steps, counter-clockwise from 0°: a1, a2, a2 − a1, −a1, −a2, a1 − a2.
const STEPS: [Axial; 6] = [(1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1)];

/// q·a1 + r·a2 for lattice spacing d.
fn axial_point(spacing: f64, (q, r): Axial) -> Point {
    Point::new(spacing * (q as f64 + 0.5 * r as f64), spacing * 3f64.sqrt() / 2.0 * r as f64)
}

/// A cluster of 1, 7 or 19 hexagonal cells that wraps around (tiles the plane).
#[derive(Clone, Debug)]
pub struct Layout {
    radius: f64,
    /// d = √3·R, the distance between adjacent base stations.
    spacing: f64,
    axial: Vec<Axial>,
    centres: Vec<Point>,
    /// T1 and T2.
    lattice: [Point; 2],
    /// Identity, ±T1, ±T2, ±(T2 − T1): the translations to the nearest cluster images.
    images: [Point; 7],
    /// (q, r) ↦ (q + m·r) mod N is zero exactly on the translation lattice (see `hexagonal`).
    multiplier: i64,
    /// Cell index by residue (q + m·r) mod N.
    cell_of_residue: Vec<usize>,
}

impl Layout {
    /// A centre cell plus full rings: `cells` ∈ {1, 7, 19}; `radius_m` is R, finite and > 0.
    pub fn hexagonal(cells: u32, radius_m: f64) -> Result<Layout, String> {
        let (i, j, rings) = match cells {
            1 => (1, 0, 0),
            7 => (2, 1, 1),
            19 => (3, 2, 2),
            _ => return Err(format!("hexagonal layout with {cells} cells: expected 1, 7 or 19")),
        };
        if !(radius_m.is_finite() && radius_m > 0.0) {
            return Err(format!("cell radius {radius_m} m: expected a finite number > 0"));
        }
        let spacing = 3f64.sqrt() * radius_m;
        let mut axial = vec![(0, 0)];
        for k in 1..=rings {
            for (m, &corner) in STEPS.iter().enumerate() {
                let step = STEPS[(m + 2) % 6];
                for s in 0..k {
                    axial.push((k * corner.0 + s * step.0, k * corner.1 + s * step.1));
                }
            }
        }
        let centres = axial.iter().map(|&a| axial_point(spacing, a)).collect();
        let n = i64::from(cells);
        let (t1, t2) = ((i, j), (-j, i + j));
        // A homomorphism Z² → Z_N, (q, r) ↦ q + m·r, is onto and kills T1 and T2 iff
        // i + m·j ≡ 0 and −j + m·(i + j) ≡ 0 (mod N); its kernel then has index N, so it is
        // exactly the translation lattice (N = 7: m = 5; N = 19: m = 8; N = 1: m = 0).
        let multiplier = (0..n)
            .find(|m| (t1.0 + m * t1.1).rem_euclid(n) == 0 && (t2.0 + m * t2.1).rem_euclid(n) == 0)
            .ok_or_else(|| format!("no residue map for {cells} cells"))?;
        let mut cell_of_residue = vec![usize::MAX; cells as usize];
        for (c, &(q, r)) in axial.iter().enumerate() {
            let slot = &mut cell_of_residue[(q + multiplier * r).rem_euclid(n) as usize];
            if *slot != usize::MAX {
                return Err(format!("cells {} and {c} are images of each other", *slot));
            }
            *slot = c;
        }
        let (p1, p2) = (axial_point(spacing, t1), axial_point(spacing, t2));
        let images = [Point::ORIGIN, p1, p1 * -1.0, p2, p2 * -1.0, p2 - p1, p1 - p2];
        Ok(Layout { radius: radius_m, spacing, axial, centres, lattice: [p1, p2], images, multiplier, cell_of_residue })
    }

    pub fn cells(&self) -> usize {
        self.centres.len()
    }

    /// R, the centre-to-vertex radius of every cell, in metres.
    pub fn radius(&self) -> f64 {
        self.radius
    }

    /// The base station of cell `c` (panics if `c >= cells()`).
    pub fn centre(&self, c: usize) -> Point {
        self.centres[c]
    }

    /// The two translations T1, T2 under which the cluster tiles the plane.
    pub fn lattice(&self) -> [Point; 2] {
        self.lattice
    }

    /// The image of `p` inside the cluster: `p` minus the translation that brings it nearest to
    /// a cell centre. Points exactly on the cluster's outer boundary have two equally near
    /// images; either may be returned.
    pub fn wrap(&self, p: Point) -> Point {
        let (q, r) = self.nearest_site(p);
        let n = self.cells() as i64;
        let cell = self.cell_of_residue[(q + self.multiplier * r).rem_euclid(n) as usize];
        let (cq, cr) = self.axial[cell];
        p - axial_point(self.spacing, (q - cq, r - cr))
    }

    /// Wrap-around distance from `p` to the base station of cell `c`, in metres: the least
    /// Euclidean distance to any translate of that base station. After wrapping, `p` and the
    /// centre are both in the cluster; with k rings every centre is within k·d of the origin and
    /// every cluster point within k·d + R, so they are at most 2·k·d + R apart (R, 4.46R, 7.93R
    /// for N = 1, 7, 19). The Voronoi cells of the zero translation and its 6 nearest neighbours
    /// (±T1, ±T2, ±(T2 − T1)) together cover the disc of radius 2/√3·|T1| = 2·√N·R (2R, 5.29R,
    /// 8.72R), so the translation nearest to p − centre, hence the nearest image, is among those 7.
    pub fn distance(&self, p: Point, c: usize) -> f64 {
        self.wrapped_distance(self.wrap(p), c)
    }

    /// The cell whose base station is nearest by wrap-around distance (ties: lower index).
    pub fn nearest_cell(&self, p: Point) -> usize {
        let w = self.wrap(p);
        let mut best = (0, f64::INFINITY);
        for c in 0..self.cells() {
            let d = self.wrapped_distance(w, c);
            if d < best.1 {
                best = (c, d);
            }
        }
        best.0
    }

    /// A point uniform over the cluster: a cell chosen uniformly (all have the same area), then
    /// a point uniform in its hexagon by rejection from the bounding box (acceptance 3/4).
    pub fn uniform_point<R: Rng + ?Sized>(&self, rng: &mut R) -> Point {
        let centre = self.centres[rng.random_range(0..self.cells())];
        loop {
            let offset = Point::new((2.0 * rng.random::<f64>() - 1.0) * self.spacing / 2.0, (2.0 * rng.random::<f64>() - 1.0) * self.radius);
            if self.in_hexagon(offset) {
                return centre + offset;
            }
        }
    }

    fn wrapped_distance(&self, w: Point, c: usize) -> f64 {
        self.images.iter().map(|&t| w.distance(self.centres[c] + t)).fold(f64::INFINITY, f64::min)
    }

    /// Whether `v` (relative to a centre) lies in the hexagon: its projections on the three edge
    /// normals (0°, 60°, 120°) are at most the apothem d/2.
    fn in_hexagon(&self, v: Point) -> bool {
        let (h, s) = (self.spacing / 2.0, 3f64.sqrt() / 2.0);
        v.x.abs() <= h && (0.5 * v.x + s * v.y).abs() <= h && (-0.5 * v.x + s * v.y).abs() <= h
    }

    /// The lattice site nearest to `p` (the hexagon containing it), by cube-coordinate rounding.
    fn nearest_site(&self, p: Point) -> Axial {
        let r = p.y / (self.spacing * 3f64.sqrt() / 2.0);
        let q = p.x / self.spacing - r / 2.0;
        let s = -q - r;
        let (mut rq, mut rr, rs) = (q.round(), r.round(), s.round());
        let (eq, er, es) = ((rq - q).abs(), (rr - r).abs(), (rs - s).abs());
        if eq > er && eq > es {
            rq = -rr - rs;
        } else if er > es {
            rr = -rq - rs;
        }
        (rq as i64, rr as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    const R: f64 = 500.0;
    const EPS: f64 = 1e-9;

    fn seven() -> Layout {
        Layout::hexagonal(7, R).expect("valid layout")
    }

    #[test]
    fn adjacent_base_stations_are_sqrt3_r_apart() {
        // d = √3·500 = 866.0254 m. Ring 1 is at d from cell 0, consecutive ring-1 cells are d
        // apart; the ring-2 cell at 30° (index 8, axial (1, 1)) is at d·(1.5, √3/2), length
        // √3·d = 1500 m.
        let l = Layout::hexagonal(19, R).expect("valid layout");
        let d = 3f64.sqrt() * R;
        for c in 1..7 {
            assert!((l.centre(c).norm() - d).abs() < EPS, "cell {c}");
            assert!((l.centre(c).distance(l.centre(c % 6 + 1)) - d).abs() < EPS, "ring neighbours {c}");
        }
        assert!((l.centre(8).norm() - 1500.0).abs() < EPS);
        // With wrap-around every cell of the 7-cluster has the other six at exactly d.
        let l7 = seven();
        for a in 0..7 {
            for b in 0..7 {
                let expect = if a == b { 0.0 } else { d };
                assert!((l7.distance(l7.centre(a), b) - expect).abs() < 1e-6, "{a}->{b}");
            }
        }
    }

    #[test]
    fn lattice_vectors_match_hand_computation() {
        // N = 7: T1 = 2·a1 + a2 = d·(2.5, √3/2), T2 = −a1 + 3·a2 = d·(0.5, 3√3/2); |T| = √7·d.
        let d = 3f64.sqrt() * R;
        let [t1, t2] = seven().lattice();
        assert!((t1 - Point::new(2.5 * d, 3f64.sqrt() / 2.0 * d)).norm() < EPS);
        assert!((t2 - Point::new(0.5 * d, 1.5 * 3f64.sqrt() * d)).norm() < EPS);
        // N = 19: T1 = 3·a1 + 2·a2 = d·(4, √3), |T1| = √19·d.
        let [u1, _] = Layout::hexagonal(19, R).expect("valid layout").lattice();
        assert!((u1 - Point::new(4.0 * d, 3f64.sqrt() * d)).norm() < EPS);
        assert!((u1.norm() - 19f64.sqrt() * d).abs() < EPS);
    }

    #[test]
    fn far_edge_is_closer_across_the_wrap() {
        // Cell 1 is at (d, 0); p = (1.45·d, 0) is near its east edge (x = 1.5·d, the cluster
        // boundary). Cell 5 is at −a2 = d·(−0.5, −√3/2). Plain distance: d·√(1.95² + 0.75)
        // = 2.1337·d; its image −a2 + T1 = (2·d, 0) is only 0.55·d away.
        let l = seven();
        let d = 3f64.sqrt() * R;
        let p = Point::new(1.45 * d, 0.0);
        assert!((p.distance(l.centre(5)) - (1.95f64.powi(2) + 0.75).sqrt() * d).abs() < 1e-6);
        assert!((l.distance(p, 5) - 0.55 * d).abs() < 1e-6);
        assert_eq!(l.nearest_cell(p), 1);
    }

    #[test]
    fn wrapped_distances_are_bounded() {
        // Covering radius of the translation lattice: |T1|/√3 = √7·d/√3 = √7·R = 1322.9 m,
        // attained at (T1 + T2)/3 = d·(1, 2/√3) for cell 0 (|.| = d·√(7/3) = √7·R).
        let l = seven();
        let [t1, t2] = l.lattice();
        assert!((l.distance((t1 + t2) * (1.0 / 3.0), 0) - 7f64.sqrt() * R).abs() < 1e-6);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        for _ in 0..20_000 {
            let p = Point::new((rng.random::<f64>() - 0.5) * 2e5, (rng.random::<f64>() - 0.5) * 2e5);
            let near = l.nearest_cell(p);
            assert!(l.distance(p, near) <= R + EPS, "{p:?}");
            for c in 0..7 {
                assert!(l.distance(p, c) <= 7f64.sqrt() * R + EPS, "{p:?} to {c}");
                assert!(l.distance(p, c) >= l.distance(p, near) - EPS);
            }
        }
    }

    #[test]
    fn seven_images_match_brute_force() {
        // The least distance over all translations a·T1 + b·T2 with |a|, |b| ≤ 4 (ample: the
        // points are within 3 lattice periods) equals `distance` to 1e-6 m.
        for cells in [1, 7, 19] {
            let l = Layout::hexagonal(cells, R).expect("valid layout");
            let [t1, t2] = l.lattice();
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
            for _ in 0..2_000 {
                let span = 2.0 * t1.norm();
                let p = Point::new((rng.random::<f64>() - 0.5) * span, (rng.random::<f64>() - 0.5) * span);
                for c in 0..l.cells() {
                    let brute = (-4..=4)
                        .flat_map(|a| (-4..=4).map(move |b| (a as f64, b as f64)))
                        .map(|(a, b)| p.distance(l.centre(c) + t1 * a + t2 * b))
                        .fold(f64::INFINITY, f64::min);
                    assert!((l.distance(p, c) - brute).abs() < 1e-6, "{cells}: {p:?} to {c}");
                }
            }
        }
    }

    #[test]
    fn wrap_is_idempotent_and_lands_in_nearest_hexagon() {
        // For any p, wrap(p) − p is a lattice translation, wrap(wrap(p)) = wrap(p) within 1e-9 m,
        // and wrap(p) lies in the hexagon of its nearest centre (Euclidean, within the cluster).
        for cells in [1, 7, 19] {
            let l = Layout::hexagonal(cells, R).expect("valid layout");
            let [t1, t2] = l.lattice();
            let det = t1.x * t2.y - t1.y * t2.x;
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
            for _ in 0..20_000 {
                let p = Point::new((rng.random::<f64>() - 0.5) * 1e5, (rng.random::<f64>() - 0.5) * 1e5);
                let w = l.wrap(p);
                assert!((l.wrap(w) - w).norm() < EPS, "{cells}: {p:?}");
                let v = p - w;
                let (a, b) = ((v.x * t2.y - v.y * t2.x) / det, (t1.x * v.y - t1.y * v.x) / det);
                assert!((a - a.round()).abs() < 1e-9 && (b - b.round()).abs() < 1e-9, "{cells}: {p:?}");
                let c = (0..l.cells()).min_by(|&x, &y| w.distance(l.centre(x)).total_cmp(&w.distance(l.centre(y)))).unwrap_or(0);
                // Shrinking the offset by 1e-9 (0.5 µm at R = 500 m) absorbs rounding on edges.
                assert!(l.in_hexagon((w - l.centre(c)) * (1.0 - 1e-9)), "{cells}: {p:?} -> {w:?}");
            }
        }
    }

    #[test]
    fn translated_centres_wrap_back_and_are_nearest_to_themselves() {
        let l = seven();
        let [t1, t2] = l.lattice();
        for c in 0..7 {
            assert_eq!(l.nearest_cell(l.centre(c)), c);
            for shift in [t1, t2, t1 * -1.0, t2 - t1, t1 * 3.0 - t2 * 2.0] {
                assert!((l.wrap(l.centre(c) + shift) - l.centre(c)).norm() < 1e-6, "cell {c} {shift:?}");
                assert_eq!(l.nearest_cell(l.centre(c) + shift), c);
            }
        }
    }

    #[test]
    fn uniform_point_is_uniform_over_the_cluster() {
        // Each cell has p = 1/7; binomial standard error √(p(1−p)/n) = √(6/49/1e5) = 0.0011.
        // Per-axis variance of a uniform point: 5/24·R² within a hexagon (polar moment
        // 5√3/8·R⁴ over area 3√3/2·R², halved) plus the centres' 6·3R²/7/2 = 9/7·R², i.e.
        // 251/168·R²; standard error of the mean √(251/168)·R/√n = 1.93 m.
        let l = seven();
        let n = 100_000;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let mut counts = [0u32; 7];
        let (mut sx, mut sy, mut s2) = (0.0, 0.0, 0.0);
        for _ in 0..n {
            let p = l.uniform_point(&mut rng);
            counts[l.nearest_cell(p)] += 1;
            assert!((l.wrap(p) - p).norm() < EPS, "{p:?} is outside the cluster");
            (sx, sy, s2) = (sx + p.x, sy + p.y, s2 + p.x * p.x);
        }
        let se_share = (1.0 / 7.0 * 6.0 / 7.0 / n as f64).sqrt();
        for (c, &k) in counts.iter().enumerate() {
            assert!((k as f64 / n as f64 - 1.0 / 7.0).abs() < 5.0 * se_share, "cell {c}: {k}");
        }
        let se_mean = (251.0 / 168.0f64).sqrt() * R / (n as f64).sqrt();
        assert!((sx / n as f64).abs() < 5.0 * se_mean && (sy / n as f64).abs() < 5.0 * se_mean);
        // E[x²] = 251/168·R² = 373 512 m²; allow 2 % (x² has a coefficient of variation near 1.4,
        // so its standard error is about 1.4/√n = 0.45 %; 2 % is over 4 standard errors).
        assert!((s2 / n as f64 / (251.0 / 168.0 * R * R) - 1.0).abs() < 0.02);
    }

    #[test]
    fn invalid_layouts_are_errors() {
        for cells in [0, 5, 2, 37] {
            let e = Layout::hexagonal(cells, R).expect_err("bad count");
            assert!(e.contains("expected 1, 7 or 19"), "{e}");
        }
        for r in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(Layout::hexagonal(7, r).is_err(), "radius {r}");
        }
        assert_eq!(Layout::hexagonal(19, R).map(|l| l.cells()), Ok(19));
    }
}
