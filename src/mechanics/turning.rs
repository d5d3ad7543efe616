//! How fast the bodies turn: the angular speed of every body and beam node with an
//! orientation, from its coordinates and their rates (`BodyInfo`): a planar body's angle rate,
//! a planar slope's (ANCF node) turning rate |d x d'| / |d|^2, a spatial body's
//! |omega| = 2 |p' - (p . p') p / |p|^2| / |p| from its Euler parameters p (Nikravesh 1988,
//! omega = 2 G p', with |G x| = |x| for x orthogonal to p of unit length).

use super::System;

impl System {
    /// The body turning fastest at (q, v): its index in `bodies` and its angular speed (rad/s);
    /// None if no body has an orientation, or none turns.
    pub fn fastest_turning(&self, q: &[f64], v: &[f64]) -> Option<(usize, f64)> {
        let mut fastest: Option<(usize, f64)> = None;
        for (i, b) in self.bodies.iter().enumerate() {
            let speed = match (self.spatial, b.rotates, b.director) {
                (false, true, _) => v[b.x + 2].abs(),
                (false, false, true) => {
                    let (d, dd) = ([q[b.x + 2], q[b.x + 3]], [v[b.x + 2], v[b.x + 3]]);
                    (d[0] * dd[1] - d[1] * dd[0]).abs() / (d[0] * d[0] + d[1] * d[1])
                }
                (true, true, _) => {
                    let (p, dp) = (&q[b.x + 3..b.x + 7], &v[b.x + 3..b.x + 7]);
                    let pp: f64 = p.iter().map(|x| x * x).sum();
                    let along = p.iter().zip(dp).map(|(x, y)| x * y).sum::<f64>() / pp;
                    let across: f64 = p.iter().zip(dp).map(|(x, y)| (y - along * x).powi(2)).sum();
                    2.0 * (across / pp).sqrt()
                }
                _ => continue,
            };
            if speed > fastest.map_or(0.0, |f| f.1) {
                fastest = Some((i, speed));
            }
        }
        fastest
    }
}
