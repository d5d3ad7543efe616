//! Joint reactions: the force and moment a joint's rows exert on its body 2, from the
//! multipliers. The rows Phi(q) = 0 act on the coordinates with the generalized forces
//! -Phi_q^T lambda (the equations are M a + g + Phi_q^T lambda = 0; Haug 1989, chs. 6 and 11:
//! the reaction forces of the Lagrange multipliers). Their part on body 2's coordinates is
//! the action of body 1 on body 2 at the joint:
//! - planar, on (x, y, theta): the force and the torque about body 2's reference point;
//! - spatial, on (r, p): the force Q_r, and on the Euler parameters Q_p = 2 E(p)^T n + mu p
//!   for the moment n about body 2's reference point r: the virtual rotation of a moment is
//!   dpi = 2 E(p) dp (omega = 2 E p', Nikravesh 1988, eq. 6.94, as for a torque load in
//!   src/mechanics/forces/spatial_load.rs), and mu p is the part along p, which moves no
//!   rotation. E p = 0 and E E^T = (p.p) I give n = E Q_p / (2 p.p); about the joint point
//!   P = r + A s carried by body 2 the moment is n_P = n - (A s) x Q_r.
//!
//! Every row of the joint counts, a drive's too (the axial component of a driven revolute
//! joint's moment is its `drive_force`). Redundant rows (`System::set_redundant`) have zero
//! multipliers and add nothing: the kept joints carry the load (docs/solver.md).

use super::System;
use super::euler_parameters::{cross, e_matrix};
use super::joints::{JointInfo, JointKind};
use super::spatial_kinematics::Anchor3;

/// The generalized constraint force -Phi_q^T lambda of `joint`'s rows on the `N` consecutive
/// coordinates from `first` (body 2's).
pub fn generalized_force<const N: usize>(
    sys: &System,
    joint: &JointInfo,
    first: usize,
    q: &[f64],
    lambda: &[f64],
) -> [f64; N] {
    let mut f = [0.0; N];
    for r in joint.rows.clone() {
        let c = &sys.constraints[r];
        c.measure.with_gradient(q, |_, gradient| {
            for (g, &i) in gradient.iter().zip(c.measure.dofs()) {
                if (first..first + N).contains(&i) {
                    f[i - first] -= g * lambda[r];
                }
            }
        });
    }
    f
}

/// Whether the joint transmits no moment about its point (body 2's): a spherical joint's rows
/// hold the point alone, and a distance joint's force acts along the link through its point 2,
/// so either force passes through it. Its moment is reported as exactly 0 (computed,
/// n - (A s) x Q_r would be round-off) and depends on no input.
pub fn moment_free(joint: &JointInfo) -> bool {
    matches!(joint.kind, JointKind::Spherical | JointKind::Distance)
}

/// The moment of `joint`'s rows on body 2 (a spatial body or beam node, coordinates r, p from
/// `body2_x`) about `point`, body 2's anchor at the joint point; global components.
pub fn spatial_moment(sys: &System, joint: &JointInfo, point: &Anchor3, q: &[f64], lambda: &[f64]) -> [f64; 3] {
    spatial_moment_terms(sys, joint, point, q, lambda).0
}

/// `spatial_moment` and the size of the two terms it is the difference of, |n| + |A s| |Q_r|:
/// a moment that cancels to round-off of that size is zero (the rows holding the joint point
/// exert a force through it; src/simulation/dependencies.rs).
pub fn spatial_moment_terms(
    sys: &System,
    joint: &JointInfo,
    point: &Anchor3,
    q: &[f64],
    lambda: &[f64],
) -> ([f64; 3], f64) {
    if moment_free(joint) {
        return ([0.0; 3], 0.0);
    }
    let x = joint.body2_x;
    let f = generalized_force::<7>(sys, joint, x, q, lambda);
    let p = &q[x + 3..x + 7];
    let e = e_matrix(p);
    let pp: f64 = p.iter().map(|c| c * c).sum();
    let position = point.position(q);
    let arm = [position[0] - q[x], position[1] - q[x + 1], position[2] - q[x + 2]];
    let shift = cross(arm, [f[0], f[1], f[2]]);
    let n: [f64; 3] = std::array::from_fn(|i| (0..4).map(|k| e[i][k] * f[3 + k]).sum::<f64>() / (2.0 * pp));
    let norm = |v: [f64; 3]| v.iter().map(|c| c * c).sum::<f64>().sqrt();
    let size = norm(n) + norm(arm) * norm([f[0], f[1], f[2]]);
    (std::array::from_fn(|i| n[i] - shift[i]), size)
}
