//! Angular momentum of spatial models about the global origin, global components: of one
//! rigid body, L = r x m r' + A(p) J' omega' (`RigidBody3d::angular_momentum`), of one point
//! mass, L = r x m r' (`PointMass::angular_momentum`), or of the whole model, the sum over the
//! spatial kinds with mass: rigid bodies and plate patches (`RigidBody3d`), point masses
//! (`PointMass<3>`) and spatial beam elements (`CorotationalBeam3d::momentum`: its consistent
//! translational mass and lumped rotary inertia, the momentum of the kinetic energy the
//! element uses). Springs, loads, contacts, joints and the plates' multi-point elements carry
//! no mass. The total changes at the rate of the external moments about the origin (Euler's
//! second law, dL/dt = sum of r x F + T); with none it is conserved.
//! (tests/suite/angular_momentum.rs checks that the total misses no kind: for a rigid
//! rotation omega of the whole model, omega . L = 2 T, T the kinetic energy of every element.)

use super::System;
use super::elements::{CorotationalBeam3d, PointMass, RigidBody3d};

/// A body with mass of its own, for the angular momentum of one body: its element's index
/// among the rigid body elements (rigid bodies and plate patches) or among the spatial point
/// masses. Beam nodes have none (their mass belongs to their elements).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyMass {
    Rigid(usize),
    Point(usize),
}

/// The angular momentum about the global origin of `body`, or for `None` of the whole model.
pub fn angular_momentum(sys: &System, body: Option<BodyMass>, q: &[f64], v: &[f64]) -> [f64; 3] {
    let bodies = sys.elements::<RigidBody3d>();
    let points = sys.elements::<PointMass<3>>();
    match body {
        Some(BodyMass::Rigid(b)) => return bodies[b].angular_momentum(q, v),
        Some(BodyMass::Point(b)) => return points[b].angular_momentum(q, v),
        None => {}
    }
    let mut l = [0.0; 3];
    let beams = sys.elements::<CorotationalBeam3d>().iter().map(|e| e.momentum(q, v).1);
    let masses = points.iter().map(|p| p.angular_momentum(q, v));
    for part in bodies.iter().map(|b| b.angular_momentum(q, v)).chain(beams).chain(masses) {
        for k in 0..3 {
            l[k] += part[k];
        }
    }
    l
}
