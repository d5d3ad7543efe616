//! Angular momentum of spatial models about the global origin, global components: of one
//! rigid body, L = r x m r' + A(p) J' omega' (`RigidBody3d::angular_momentum`), or of the
//! whole model, the sum over the spatial kinds with mass: rigid bodies and plate patches
//! (`RigidBody3d`) and spatial beam elements (`CorotationalBeam3d::momentum`: its consistent
//! translational mass and lumped rotary inertia, the momentum of the kinetic energy the
//! element uses). Springs, loads, contacts and the plates' multi-point elements carry no mass.
//! The total changes at the rate of the external moments about the origin (Euler's second law,
//! dL/dt = sum of r x F + T); with none it is conserved.
//! (tests/suite/angular_momentum.rs checks that the total misses no kind: for a rigid
//! rotation omega of the whole model, omega . L = 2 T, T the kinetic energy of every element.)

use super::System;
use super::elements::{CorotationalBeam3d, RigidBody3d};

/// The angular momentum about the global origin of the rigid body element `body` (its index
/// among the `RigidBody3d` elements), or for `None` of the whole model.
pub fn angular_momentum(sys: &System, body: Option<usize>, q: &[f64], v: &[f64]) -> [f64; 3] {
    let bodies = sys.elements::<RigidBody3d>();
    if let Some(b) = body {
        return bodies[b].angular_momentum(q, v);
    }
    let mut l = [0.0; 3];
    let beams = sys.elements::<CorotationalBeam3d>().iter().map(|e| e.momentum(q, v).1);
    for part in bodies.iter().map(|b| b.angular_momentum(q, v)).chain(beams) {
        for k in 0..3 {
            l[k] += part[k];
        }
    }
    l
}
