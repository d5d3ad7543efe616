//! Stress resultants of a corotational beam at a node (the outputs `axial_force`,
//! `shear_force`, `bending_moment`; spatial `shear_force_y`, `shear_force_z`,
//! `torsional_moment`, `bending_moment_y`, `bending_moment_z`): the force and moment that the
//! part of the beam beyond the node (towards its end) exerts on the part before it, in the
//! element's axes (the positive-face convention of beam theory: N = EA eps, tension positive;
//! M = EI kappa). Each element gives them at its two nodes from its local elastic and
//! material-damping forces (`CorotationalBeam2d::end_resultants`,
//! `CorotationalBeam3d::end_resultants`); at a node between two elements the mean of the two.
//! In statics the two agree exactly in the moments (the node's moment balance), and in the
//! forces up to the turn between the two elements' axes; in motion they differ by the node's
//! share of the inertia forces, which vanishes as the mesh is refined.

use super::System;
use super::elements::{CorotationalBeam2d, CorotationalBeam3d, Element};
use super::outputs::OutputKind;

/// The section force `component` (0..6 of (N, Vy, Vz, T, My, Mz); a planar beam has 0, 1 and
/// 5) at the node whose coordinates start at `x` (named `body`). An error if `body` is no
/// corotational beam node.
pub fn section_output(sys: &System, x: usize, body: &str, component: usize) -> Result<OutputKind, String> {
    // Each element's first and second node (their first coordinates).
    let nodes: Vec<(usize, usize)> = if sys.spatial {
        sys.elements::<CorotationalBeam3d>().iter().map(|e| (e.dofs()[0], e.dofs()[7])).collect()
    } else {
        sys.elements::<CorotationalBeam2d>().iter().map(|e| (e.dofs()[0], e.dofs()[3])).collect()
    };
    // The element that ends at the node and the one that starts there.
    let elements = [nodes.iter().position(|n| n.1 == x), nodes.iter().position(|n| n.0 == x)];
    if elements == [None, None] {
        return Err(format!(
            "section forces are those of a corotational beam at one of its nodes (`arm.node[k]`, `arm.start`, \
             `arm.end` of a beam with formulation timoshenko or euler_bernoulli); '{body}' is none"
        ));
    }
    Ok(OutputKind::SectionForce { elements, component })
}

/// The value of `OutputKind::SectionForce` at (q, v).
pub fn section_force(sys: &System, elements: &[Option<usize>; 2], component: usize, q: &[f64], v: &[f64]) -> f64 {
    let mut sum = 0.0;
    let mut count = 0.0;
    for (end, element) in [1, 0].into_iter().zip(elements) {
        let Some(k) = *element else { continue };
        sum += if sys.spatial {
            sys.elements::<CorotationalBeam3d>()[k].end_resultants(q, v)[end][component]
        } else {
            // (N, V, M) of the planar element are the spatial components 0, 1 and 5.
            sys.elements::<CorotationalBeam2d>()[k].end_resultants(q, v)[end][component.min(2)]
        };
        count += 1.0;
    }
    sum / count
}
