//! Derivatives at the current communication point, from the solver's own quantities, for
//! the FMI layers: time derivatives of the outputs (exact where the solver state has them:
//! positions give velocities and accelerations, velocities give accelerations; the others
//! along the motion, src/simulation/motion_derivatives.rs) and the Jacobian of the outputs
//! with respect to the inputs.
//!
//! Accelerations and multipliers are those of the index-1 system at (q, v, t, u)
//!   [ M(q)   Phi_q^T ] [ a      ]   [ -g(q, v, t, u) ]
//!   [ Phi_q  0       ] [ lambda ] = [ gamma(q, v)    ]
//! (as `output_values` uses). Since q and v do not respond to u at a communication point,
//! d(a, lambda)/du_i = A^-1 [-dg/du_i; dgamma/du_i] with the same matrix A (the solver's Newton
//! matrix with the mass and constraint blocks only). dg/du_i is the sum over the elements
//! reading u_i of their exact derivatives (`System::input_force_derivative`,
//! `Element::add_input_derivative`: a load's force at unit magnitude times the magnitude's
//! derivative, a spring's -k ds0/du_i along its measure; forward mode through the
//! expressions, `Expr::eval_with_input_derivative`); a drive reading u_i changes its row of
//! gamma. The potential energy reads u_i where a spring's free length does (energy_total and
//! energy_potential: a central difference of it). The other outputs that respond
//! (accelerations, reactions) are linear in (a, lambda) once q and v are fixed, so their
//! derivative is the output evaluated at (q, v = 0, da, dlambda); a section force is affine in
//! a and reads the inputs through its element's loads (`OutputKind::reads_inputs`).

use super::{Model, Simulation, SolverSettings};
use crate::integrators::{Dynamics, EnergyFlow, TangentCoefficients};
use crate::linalg::SparseLu;
use crate::mechanics::outputs::{OutputKind, OutputState};

/// The output whose value is the `k`-th time derivative of `kind`, if the solver state has it
/// exactly: positions give velocities and accelerations, velocities (and angular velocities)
/// give accelerations. The other derivatives are differences along the motion
/// (src/simulation/motion_derivatives.rs).
pub(super) fn derived(kind: &OutputKind, k: usize) -> Option<OutputKind> {
    let up = |order: usize, max: usize| (order + k <= max).then_some(order + k);
    Some(match kind {
        OutputKind::Point { anchor, component, order } => {
            OutputKind::Point { anchor: *anchor, component: *component, order: up(*order, 2)? }
        }
        OutputKind::Rotation { theta, order } => OutputKind::Rotation { theta: *theta, order: up(*order, 2)? },
        OutputKind::SectionAngle { anchor, order } => {
            OutputKind::SectionAngle { anchor: *anchor, order: up(*order, 2)? }
        }
        OutputKind::SpatialPoint { anchor, component, order } => {
            OutputKind::SpatialPoint { anchor: *anchor, component: *component, order: up(*order, 2)? }
        }
        // A coordinate: its rate and acceleration.
        OutputKind::EulerParameter { index } => OutputKind::Rotation { theta: *index, order: up(0, 2)? },
        OutputKind::JointCoordinate { joint, coordinate, order } => {
            OutputKind::JointCoordinate { joint: *joint, coordinate: *coordinate, order: up(*order, 2)? }
        }
        // omega = 2 E(p) p' gives 2 E(p) p'' (E(p') p' = 0), and the body frame's likewise.
        OutputKind::SpatialAngularVelocity { x, component, order } => {
            OutputKind::SpatialAngularVelocity { x: *x, component: *component, order: up(*order, 1)? }
        }
        OutputKind::SpatialBodyAngularVelocity { x, component, order } => {
            OutputKind::SpatialBodyAngularVelocity { x: *x, component: *component, order: up(*order, 1)? }
        }
        _ => return None,
    })
}

impl Simulation {
    /// The `order`-th time derivative (1 or 2) of output `index` at the current time: from the
    /// solver state where it has the derivative exactly (`derived`: velocities, and the
    /// accelerations of the index-1 system), else along the motion
    /// (src/simulation/motion_derivatives.rs).
    pub fn output_derivative(&mut self, index: usize, order: usize) -> Result<f64, String> {
        let o = self.outputs.get(index).ok_or_else(|| format!("no output with index {index}"))?;
        if !(1..=2).contains(&order) {
            return Err(format!(
                "output '{}' has no derivative of order {order} (maxOutputDerivativeOrder = 2: orders 1 and 2)",
                o.name
            ));
        }
        let Some(kind) = derived(&o.kind, order) else {
            return self.motion_derivative(index, order);
        };
        let reads_accelerations = kind.needs_accelerations();
        if reads_accelerations {
            self.state_accelerations()?;
        }
        let s = &self.state;
        let (a, lambda) = if reads_accelerations { (&self.motion.a0, &self.motion.lambda0) } else { (&s.a, &s.lambda) };
        let os =
            OutputState { q: &s.q, v: &s.v, a, lambda, t: s.t, exchanged: s.exchanged, drive_inputs: &self.drive_ends };
        let x = kind.eval(&self.system, &os);
        if !x.is_finite() {
            let name = &self.outputs[index].name;
            return Err(format!("derivative of order {order} of output '{name}' is {x} at t = {}", s.t));
        }
        Ok(x)
    }

    /// d outputs / d inputs at the current point: `jacobian[o][i]`. Outputs that do not depend
    /// directly on input i (`direct_dependencies`) have 0.
    pub fn input_jacobian(&mut self) -> Result<Vec<Vec<f64>>, String> {
        let dependencies = self.direct_dependencies();
        let inputs = self.system.inputs.len();
        let mut jacobian = vec![vec![0.0; inputs]; self.outputs.len()];
        if dependencies.iter().all(Vec::is_empty) {
            return Ok(jacobian);
        }
        let sys = &self.system;
        let (n, m) = (sys.coordinates(), sys.constraints());
        let s = &self.state;
        let c = TangentCoefficients { mass: 1.0, damping: 0.0, stiffness: 0.0, lambda: 1.0 };
        let mut matrix = sys.newton_pattern();
        sys.newton_matrix(&s.q, &s.v, &vec![0.0; n], &vec![0.0; m], s.t, c, &mut matrix);
        let mut lu = SparseLu::new(&matrix);
        lu.factorize(&matrix).map_err(|e| e.to_string())?;
        let (zeros, zero_multipliers) = (vec![0.0; n], vec![0.0; m]);
        let mut dg = vec![0.0; n];
        for i in 0..inputs {
            if !dependencies.iter().any(|d| d.contains(&i)) {
                continue;
            }
            // -dg/du_i from the elements reading u_i.
            let mut rhs = vec![0.0; n + m];
            sys.input_force_derivative(&s.q, &s.v, s.t, &sys.inputs, i, &mut dg);
            for (r, d) in rhs.iter_mut().zip(&dg) {
                *r = -d;
            }
            // A drive reading u_i: its row's rhs gamma = ... + f''(t, u) changes by df''/du_i.
            for (r, c) in sys.constraints.iter().enumerate() {
                if c.drive.as_ref().is_some_and(|f| f.reads_input(i)) {
                    rhs[n + r] += central_difference(&sys.inputs, i, |u| c.prescribed(s.t, u, &sys.input_rates)[2]);
                }
            }
            lu.solve(&mut rhs).map_err(|e| e.to_string())?;
            let (da, dlambda) = rhs.split_at(n);
            let os = OutputState {
                q: &s.q,
                v: &zeros,
                a: da,
                lambda: dlambda,
                t: s.t,
                exchanged: EnergyFlow::default(),
                drive_inputs: &self.drive_ends,
            };
            // The potential energy reading u_i (a spring's free length; the kinetic energy does
            // not read the inputs).
            // Differenced once, however many energy outputs read it.
            let mut potential = None;
            for (row, (output, deps)) in jacobian.iter_mut().zip(self.outputs.iter().zip(&dependencies)) {
                if deps.contains(&i) {
                    row[i] = if output.kind.reads_potential_energy() {
                        *potential.get_or_insert_with(|| {
                            central_difference(&sys.inputs, i, |u| sys.energy_with_inputs(&s.q, &s.v, s.t, u).potential)
                        })
                    } else if output.kind.reads_inputs() {
                        // A section force is M_g a plus the element's forces at (q, v) less its
                        // distributed loads (src/mechanics/section_forces.rs): affine in a, so
                        // the response to da is the difference of two evaluations, exact; the
                        // loads read u_i themselves (a central difference at a = 0). Evaluated
                        // at da alone it held the elastic forces and the weight: -20 N m per N
                        // for a root moment that does not respond (probe 40b).
                        let rest = OutputState { a: &zeros, lambda: &zero_multipliers, ..os };
                        let direct =
                            central_difference(&sys.inputs, i, |u| output.kind.eval_with_inputs(sys, &rest, u));
                        output.eval(sys, &os) - output.eval(sys, &rest) + direct
                    } else {
                        output.eval(sys, &os)
                    };
                }
            }
        }
        Ok(jacobian)
    }
}

impl Simulation {
    /// d outputs / d inputs of the initial state, before the first step (Initialization Mode):
    /// inputs set then are the initial state's (`set_initial_inputs`), so a driving input moves
    /// the state itself, and in a model with one every input an element reads moves it too
    /// (the drives are followed with the forces of the assembled state, which such an input
    /// enters: a follower load turning with the boom; `initial_input_dependencies`). Their
    /// columns are central differences of `set_initial_inputs`, which starts from the
    /// assembled state each time, so the state afterwards is the one before bit for bit; and
    /// nothing has been supplied yet (energy_supplied's row is 0). In a model without a driving
    /// input the inputs leave the state where it is: their columns are `input_jacobian`'s. A
    /// probe got the step-mode Jacobian here: 0 for d angle / d commanded angle.
    pub fn initial_input_jacobian(&mut self) -> Result<Vec<Vec<f64>>, String> {
        let mut jacobian = self.input_jacobian()?;
        let count = self.system.inputs.len();
        let driven = (0..count).any(|i| self.input_drives_a_joint(i));
        let moving: Vec<usize> =
            (0..count).filter(|&i| self.input_drives_a_joint(i) || (driven && self.system.reads_input(i))).collect();
        let (inputs, rates) = (self.system.inputs.clone(), self.initial_rates.clone());
        for &i in &moving {
            // Each side is a state the drives' relaxation reached to the Newton tolerance
            // (~1e-10 relative), so the step is the cube root of that noise, not 1e-6 (a probe's
            // crane read d slew_torque / d slew 0.18 % off the differences through the FMU); the
            // truncation error O(h^2) stays below it.
            let h = INITIAL_STEP * (1.0 + inputs[i].abs());
            let mut at = |value: f64| -> Result<Vec<f64>, String> {
                let mut u = inputs.clone();
                u[i] = value;
                self.set_initial_inputs(&u, &rates)?;
                Ok(self.output_values()?.to_vec())
            };
            let (plus, minus) = (at(inputs[i] + h), at(inputs[i] - h));
            self.set_initial_inputs(&inputs, &rates)?;
            let (plus, minus) = (plus?, minus?);
            for (row, (p, m)) in jacobian.iter_mut().zip(plus.iter().zip(&minus)) {
                row[i] = (p - m) / (2.0 * h);
            }
        }
        for (row, output) in jacobian.iter_mut().zip(&self.outputs) {
            if matches!(output.kind, OutputKind::EnergySupplied) {
                row.fill(0.0);
            }
        }
        Ok(jacobian)
    }
}

/// Relative step of the central differences of the initial state (`initial_input_jacobian`).
const INITIAL_STEP: f64 = 1e-4;

impl Simulation {
    /// d outputs / d p_i of the initial state for the Real parameter `i` (Initialization Mode:
    /// FMI lists the parameters as knowns of the initial unknowns, as the inputs): differences
    /// of the outputs of simulations built at the perturbed value, with `inputs` set as the
    /// initial state's. Central, with the relative step of `initial_input_jacobian` (each side
    /// is an initial state solved to the Newton tolerance), shrunk where the sides are not
    /// smooth with the centre (a kink between them); where one side leaves what the
    /// model accepts (the parameter's min or max, a mass that must be positive), the
    /// second-order one-sided difference on the other.
    pub fn initial_parameter_derivative(
        model: &Model,
        params: &[f64],
        settings: SolverSettings,
        start_time: f64,
        (inputs, rates): (&[f64], &[[f64; 2]]),
        i: usize,
    ) -> Result<Vec<f64>, String> {
        let at = |offset: f64| -> Result<Vec<f64>, String> {
            let mut p = params.to_vec();
            p[i] += offset;
            model.check_parameters(&p).map_err(|e| e.message)?;
            let mut sim = Simulation::new(model, &p, settings, start_time).map_err(|e| e.to_string())?;
            sim.set_initial_inputs(inputs, rates)?;
            Ok(sim.output_values()?.to_vec())
        };
        let combine = |h: f64, terms: &[(f64, &Vec<f64>)]| -> Vec<f64> {
            (0..terms[0].1.len()).map(|k| terms.iter().map(|(w, f)| w * f[k]).sum::<f64>() / h).collect()
        };
        // A side that crosses a contact's onset or another kink between the parameter's value
        // and the other side makes a central difference of neither side's slope: a gap of
        // 2e-5 m differenced at +-1e-4 m started the spheres interpenetrated on one side and
        // gave d contact_force / d gap = -3.9e7 N/m for spheres apart (probe 40b). Where the
        // sides and the value between them are not on one smooth curve (their second
        // difference not small against their first, beyond the noise of states solved to the
        // Newton tolerance), the step shrinks by SHRINK until two successive central
        // differences agree (a smooth extremum, where the first difference is small, agrees at
        // once; a kink does not until the step is inside it), at most MAX_SHRINKS times.
        let mut h = INITIAL_STEP * (1.0 + params[i].abs());
        let mut centre: Option<Vec<f64>> = None;
        let mut coarser: Option<Vec<f64>> = None;
        let mut shrinks = 0;
        loop {
            let (plus, minus) = match (at(h), at(-h)) {
                (Ok(plus), Ok(minus)) => (plus, minus),
                (Ok(plus), Err(_)) => return Ok(combine(h, &[(-1.5, &at(0.0)?), (2.0, &plus), (-0.5, &at(2.0 * h)?)])),
                (Err(_), Ok(minus)) => {
                    return Ok(combine(h, &[(1.5, &at(0.0)?), (-2.0, &minus), (0.5, &at(-2.0 * h)?)]));
                }
                (Err(e), Err(_)) => return Err(e),
            };
            let derivative = combine(h, &[(0.5, &plus), (-0.5, &minus)]);
            let c = match &centre {
                Some(c) => c,
                None => centre.insert(at(0.0)?),
            };
            let settled = match &coarser {
                // The coarser difference is the less noisy of two that agree.
                Some(d) => (0..c.len()).all(|k| {
                    (d[k] - derivative[k]).abs()
                        <= 1e-3 * d[k].abs().max(derivative[k].abs()) + KINK_NOISE * c[k].abs() / h
                }),
                None => (0..c.len()).all(|k| {
                    let (p, m, c) = (plus[k], minus[k], c[k]);
                    (p - 2.0 * c + m).abs() <= 0.1 * (p - m).abs() + KINK_NOISE * (p.abs() + c.abs() + m.abs())
                }),
            };
            if settled {
                return Ok(coarser.unwrap_or(derivative));
            }
            if shrinks == MAX_SHRINKS {
                return Ok(derivative);
            }
            coarser = Some(derivative);
            h *= SHRINK;
            shrinks += 1;
        }
    }
}

/// `initial_parameter_derivative`: the step shrinks by SHRINK at most MAX_SHRINKS times where
/// the sides are not smooth with the centre, judged beyond KINK_NOISE of the values (the
/// states are solved to ~1e-10 relative).
const SHRINK: f64 = 0.01;
const MAX_SHRINKS: usize = 3;
const KINK_NOISE: f64 = 1e-8;

/// d f/du_i at `inputs`: central difference in u_i, relative step 1e-6 (error O(h^2), none for
/// an f quadratic in u_i).
fn central_difference(inputs: &[f64], i: usize, f: impl Fn(&[f64]) -> f64) -> f64 {
    let h = 1e-6 * (1.0 + inputs[i].abs());
    let mut u = inputs.to_vec();
    u[i] += h;
    let plus = f(&u);
    u[i] -= 2.0 * h;
    let minus = f(&u);
    (plus - minus) / (2.0 * h)
}
