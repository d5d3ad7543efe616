//! Continuous contact force with Hertz stiffness and nonlinear hysteresis damping
//! (paper 004 section 2.3.2, eqs. 6-10):
//!   F = (F_k + F_d) L(eta),   L = 1 in contact (eq. 7),
//!   F_k = K delta^(3/2)                        (eq. 8),
//!   F_d = C K delta^(3/2) delta'               (eq. 9),
//! where delta = -eta >= 0 is the penetration and delta' its rate (positive while the bodies
//! approach). The OCR of eq. 9 reads F_d = -C K |eta|^(3/2) eta'; with eta = -delta that is
//! the form above: the damping force pushes the bodies apart while they approach and pulls
//! on them while they separate, i.e. it always opposes delta', and its power
//! C K delta^(3/2) delta'^2 is never negative. The total force is clamped at zero (no
//! tension), which can only remove energy further (see `power`).
//!
//! Damping factor C = c / v0 with v0 the approach speed recorded at contact onset (history):
//! - `LankaraniNikravesh`: c = 3 (1 - e^2) / 4, paper 004 eq. 10 as printed. Its derivation
//!   assumes e close to 1; the rebound ratio it really produces is e' from the relation below
//!   (e = 0.9 -> 0.91, e = 0.3 -> much higher), so it is only approximate.
//! - `Exact`: c solves the exact restitution relation of this force law. For a single
//!   relative coordinate m delta'' = -K delta^n (1 + C delta') (no other forces during the
//!   impact), m v dv / (1 + C v) = -K delta^n d delta integrates over the whole impact
//!   (delta from 0 back to 0) to G(v_out) = G(v0) with G(v) = v/C - ln(1 + C v)/C^2;
//!   with v_out = -e v0 and c = C v0 this is `(1 + e) c = ln((1 + c) / (1 - e c))`,
//!   0 < c < 1/e, independent of K, n and the mass. Its root gives a rebound ratio of exactly e (up to the
//!   impulse of other forces during the short impact) and 1 + C delta' >= 1 - e c > 0, so the
//!   force never turns tensile in a free impact.
//!
//! Geometry: delta = reach - s(q) with s a kinematic measure: the normal projection of the
//! point (or circle centre) from the plane (point/circle against plane; the normal rotates
//! with the plane's body), or the distance between two circle centres; reach = sum of radii.
//! The generalized force is G_delta^T F; tangents as for the spring-damper:
//!   K = G (F_delta G + F_rate (H_delta v))^T + F H_delta,   C = F_rate G G^T.

use crate::compact_number::Compact;
use crate::integrators::{ContactOutlook, EnergyFlow, Stride, TangentCoefficients};
use crate::mechanics::contact_gap::{ContactGap, time_to_contact};
use crate::mechanics::derivatives::MAX_DOFS;
use crate::mechanics::elements::{Element, Energy, Kin};
use crate::mechanics::forces::impact_duration::{impact_duration, largest_penetration};
use crate::mechanics::history::{Memory, MemoryKind};

/// How the damping factor follows from the restitution coefficient.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DampingModel {
    /// c from (1 + e) c = ln((1 + c)/(1 - e c)): rebound ratio exactly e.
    Exact,
    /// c = 3 (1 - e^2)/4 (paper 004 eq. 10; approximate for e < 1).
    LankaraniNikravesh,
}

impl DampingModel {
    /// The dimensionless damping c = C v0 for restitution e in (0, 1].
    pub fn factor(self, e: f64) -> f64 {
        match self {
            DampingModel::LankaraniNikravesh => 0.75 * (1.0 - e * e),
            DampingModel::Exact => exact_damping_factor(e),
        }
    }
}

/// Root c in (0, 1/e) of f(c) = (1 + e) c - ln((1 + c)/(1 - e c)) (bisection; f > 0 near 0+,
/// f -> -inf at 1/e). e = 1 gives 0.
pub fn exact_damping_factor(e: f64) -> f64 {
    if e >= 1.0 {
        return 0.0;
    }
    let f = |c: f64| (1.0 + e) * c - ((1.0 + c) / (1.0 - e * c)).ln();
    // f(c) = (1-e^2) c^2/2 - (1+e^3) c^3/3 + O(c^4): start the bracket where f is clearly positive.
    let (mut lo, mut hi) = (1e-3 * (1.0 - e), if e > 0.0 { 1.0 / e } else { 1e6 });
    while f(lo) <= 0.0 && lo > 1e-300 {
        lo *= 0.5;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid
        } else {
            hi = mid
        }
        if hi - lo <= 1e-15 * hi {
            break;
        }
    }
    0.5 * (lo + hi)
}

/// The rebound ratio e' that damping factor c = C v0 produces (inverse of the exact
/// relation: root of -e' c - ln(1 - e' c) = c - ln(1 + c) in (0, 1/c)).
pub fn restitution_of_damping_factor(c: f64) -> f64 {
    if c <= 0.0 {
        return 1.0;
    }
    let rhs = c - (1.0 + c).ln();
    let g = |e: f64| -e * c - (1.0 - e * c).ln() - rhs; // increasing in e
    let (mut lo, mut hi) = (0.0, (1.0 / c).min(1.0));
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if g(mid) < 0.0 { lo = mid } else { hi = mid }
    }
    0.5 * (lo + hi)
}

pub use crate::mechanics::history::ContactMemory;

/// A closed contact whose approach rate exceeds this multiple of its v0 has been struck: its
/// damping follows the new blow (`Contact::record`). Other forces pressing on during a free
/// impact (gravity on a dropped ball) raise the rate after onset by far less.
const STRIKE: f64 = 2.0;

/// A contact closed for longer than this many impact durations (at its onset speed) is a
/// sustained contact and no longer limits the step (`Contact::contact_step_limit`): an impact
/// with damping lasts about one duration.
const SUSTAINED: f64 = 2.0;

/// A sustained contact whose normal kinetic energy delta'^2/2 exceeds this multiple of its
/// elastic energy K delta^(n+1)/((n+1) m_eff) (both per unit effective mass) is struck: a new
/// impact begins (`Contact::phase`). Resting, rolling and slowly pressed contacts change their
/// penetration slowly against the contact's own time scale, so the ratio of the two is of the
/// order of (t_c/T)^2 (T the time scale of the load), far below one; an impact starts with all
/// of its normal energy kinetic.
const STRUCK: f64 = 1.0;

/// What a contact is for the step limit at one state (`Contact::phase`).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    /// Open and not closing within the horizon, or a sustained contact at rest: no limit.
    Free,
    /// Open, and closing at its current rate after this time (s).
    Closing(f64),
    /// Closed in an impact (or without a recorded onset): limited by its current energy.
    Impact,
    /// Closed at the first step of an impact: its duration and effective mass are not yet known.
    Start,
    /// A sustained contact whose normal motion is of its own time scale (`STRUCK`): a new
    /// impact begins.
    Struck,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Contact {
    /// s: plane-normal projection or centre distance (src/mechanics/contact_gap.rs).
    pub gap: ContactGap,
    /// delta = reach - s (sum of the radii; 0 for a point).
    pub reach: f64,
    /// K (N/m^1.5).
    pub stiffness: f64,
    /// Hertz exponent n (1.5, eq. 8).
    pub exponent: f64,
    pub restitution: f64,
    pub model: DampingModel,
    /// c = C v0 from the restitution coefficient.
    pub damping_factor: f64,
    /// v0 is never taken below this (m/s): resting contact stays finite.
    pub min_impact_speed: f64,
    memory: ContactMemory,
    /// The first impact whose largest penetration exceeds the radii (`Overrun`): a diagnosis
    /// of the run, not part of the state (a restored state keeps this run's).
    overrun: Option<Overrun>,
    /// The `[[contacts]]` entry's name, for that diagnosis (empty if built without one).
    pub name: String,
}

/// An impact the force law cannot stop within the radii: its time (s), the largest
/// penetration of its normal energy delta* (m, src/mechanics/forces/impact_duration.rs) and
/// its approach speed (m/s).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Overrun {
    t: f64,
    depth: f64,
    speed: f64,
}

/// Force state at one evaluation: penetration, rate, force, dF/d delta, dF/d delta'.
#[derive(Debug, Clone, Copy)]
pub struct ContactForce {
    pub penetration: f64,
    pub rate: f64,
    pub force: f64,
    pub elastic: f64,
    d_penetration: f64,
    d_rate: f64,
}

impl Contact {
    pub fn new(
        gap: ContactGap,
        reach: f64,
        stiffness: f64,
        restitution: f64,
        model: DampingModel,
        min_impact_speed: f64,
    ) -> Self {
        Contact {
            gap,
            reach,
            stiffness,
            exponent: 1.5,
            restitution,
            model,
            damping_factor: model.factor(restitution),
            min_impact_speed,
            memory: ContactMemory::NONE,
            overrun: None,
            name: String::new(),
        }
    }

    /// Penetration delta (negative: the gap).
    pub fn penetration(&self, q: &[f64]) -> f64 {
        self.reach - self.gap.value(q)
    }

    /// The damping factor C (s/m) of the current impact.
    fn damping(&self) -> f64 {
        let m = self.memory;
        let v0 = if m.impact.is_nan() { m.approach } else { m.impact };
        self.damping_factor / v0.max(self.min_impact_speed)
    }

    /// delta and delta'.
    fn geometry(&self, q: &[f64], v: &[f64]) -> (f64, f64) {
        self.with_rate(q, v, |delta, rate, _| (delta, rate))
    }

    /// `f(delta, delta', G, H)` with G and H the gradient and Hessian of the gap s, so that
    /// delta = reach - s has the gradient -G and the Hessian -H (the gap's derivatives are
    /// borrowed, not copied: no allocation for the measures of rigid bodies and nodes).
    fn with_geometry<R>(&self, q: &[f64], v: &[f64], f: impl FnOnce(f64, f64, &[f64], &[f64]) -> R) -> R {
        self.gap.with_derivatives(q, |value, gradient, hessian| {
            f(self.reach - value, self.approach(gradient, v), gradient, hessian)
        })
    }

    /// `with_geometry` without the Hessian (forces).
    fn with_rate<R>(&self, q: &[f64], v: &[f64], f: impl FnOnce(f64, f64, &[f64]) -> R) -> R {
        self.gap.with_gradient(q, |value, gradient| f(self.reach - value, self.approach(gradient, v), gradient))
    }

    /// delta' = -G v.
    fn approach(&self, gradient: &[f64], v: &[f64]) -> f64 {
        self.gap.dofs().iter().enumerate().map(|(k, &i)| -gradient[k] * v[i]).sum()
    }

    fn law(&self, delta: f64, rate: f64) -> ContactForce {
        let zero = ContactForce { penetration: delta, rate, force: 0.0, elastic: 0.0, d_penetration: 0.0, d_rate: 0.0 };
        if delta <= 0.0 {
            return zero; // eq. 7
        }
        let k = self.stiffness;
        let n = self.exponent;
        let c = self.damping();
        let elastic = k * delta.powf(n); // eq. 8
        let factor = 1.0 + c * rate; // F = F_k (1 + C delta'), eqs. 6 and 9
        if factor <= 0.0 {
            return ContactForce { elastic, ..zero }; // no tension
        }
        ContactForce {
            penetration: delta,
            rate,
            force: elastic * factor,
            elastic,
            d_penetration: n * k * delta.powf(n - 1.0) * factor,
            d_rate: c * elastic,
        }
    }

    /// The contact force at (q, v).
    pub fn evaluate(&self, q: &[f64], v: &[f64]) -> ContactForce {
        let (delta, rate) = self.geometry(q, v);
        self.law(delta, rate)
    }

    pub fn memory(&self) -> ContactMemory {
        self.memory
    }

    pub fn set_memory(&mut self, m: ContactMemory) {
        self.memory = m;
    }

    /// An accepted state: while separated track the approach rate; at the first accepted
    /// state in contact record the impact speed v0 (eq. 10) and the onset; a contact that
    /// closed slower than `min_impact_speed`, or is struck while closed (its approach rate
    /// exceeds `STRIKE` v0), follows the largest approach rate while it stays closed, each
    /// raise a new impact from `t` (its duration from the new speed); after separation forget it.
    pub fn record(&mut self, q: &[f64], v: &[f64], t: f64) {
        let (delta, rate) = self.geometry(q, v);
        let m = &mut self.memory;
        // Touching (delta = 0) at rest or separating is not in contact, as the law and
        // `contact_state` have it: a ball drawn touching its floor showed an impact at t = 0
        // with the contact open (a probe). Touching while approaching is the onset: a located
        // onset often ends its step at delta = 0 exactly (the penetration reach - s is exactly
        // zero over the ulps of s around the root), and the onset was then taken a step later
        // with the speed there (probe 39a: impact_time 3.3e-5 s late, 1/50 of the impact; a
        // rebound of 0.49975 for e = 0.5 when the onset fell on a step's end).
        if delta < 0.0 || (delta == 0.0 && rate <= 0.0) {
            m.impact = f64::NAN;
            m.approach = rate;
            m.duration = f64::NAN;
            m.inverse_mass = f64::NAN;
        } else if m.impact.is_nan() {
            m.impact = rate;
            m.onset = t;
            m.start = t;
            m.duration = f64::NAN;
            m.inverse_mass = f64::NAN;
        } else if rate > m.impact && (m.approach < self.min_impact_speed || rate > STRIKE * m.impact) {
            // Struck while closed (or closed at rest, or started closed): v0 follows the
            // largest approach speed since, not the small speed it closed with; `approach`
            // (the speed before onset) is set to 0 to keep following it. A contact that closed
            // fast and is only pressed on by other forces keeps its located onset speed (the
            // steps that sample the rate after onset do not change it). The impact's duration
            // follows too: kept from the first speed, that of two balls drawn resting on each
            // other (1e-16 m/s) was seconds long, and the step stayed at a fiftieth of an impact
            // for 5.5 s after they had come to rest (probe 39a: 90,274 steps for 10 s against
            // 10,472 with the top ball dropped from 1 cm).
            m.impact = rate;
            m.approach = 0.0;
            m.start = t;
            m.duration = f64::NAN;
            m.inverse_mass = f64::NAN;
        }
    }

    /// The contact's phase for the step limit at penetration `delta`, rate `rate` and time
    /// `t`, from its history alone (no effective mass is computed here). A closed contact is
    /// sustained once it has been closed for `SUSTAINED` durations of its impact (stored at
    /// the impact's first step); a sustained contact is struck when its normal kinetic energy
    /// exceeds `STRUCK` times its elastic energy, with the effective mass stored at the
    /// impact's first step (the threshold's scale: m_eff changes with the configuration, not
    /// with a strike).
    fn phase(&self, delta: f64, rate: f64, t: f64, horizon: f64) -> Phase {
        if !(delta > 0.0 || (delta == 0.0 && rate > 0.0)) {
            return time_to_contact(delta, rate, horizon).map_or(Phase::Free, Phase::Closing);
        }
        let m = self.memory;
        if m.start < 0.0 || m.impact.is_nan() {
            return Phase::Impact;
        }
        if m.duration.is_nan() {
            return Phase::Start;
        }
        if m.duration > 0.0 && t - m.start <= SUSTAINED * m.duration {
            return Phase::Impact;
        }
        let p = self.exponent + 1.0;
        let elastic = self.stiffness * m.inverse_mass * delta.max(0.0).powf(p) / p;
        if m.inverse_mass > 0.0 && 0.5 * rate * rate > STRUCK * elastic { Phase::Struck } else { Phase::Free }
    }
}

impl Element for Contact {
    fn dofs(&self) -> &[usize] {
        self.gap.dofs()
    }

    fn add_forces(&self, x: &Kin, _inertial: &mut [f64], forces: &mut [f64]) {
        // Open (eq. 7): no force, and the gap's derivatives are not needed (most contacts
        // of a box of balls are open, and their derivatives were a third of its run).
        if self.penetration(x.q) <= 0.0 {
            return;
        }
        self.with_rate(x.q, x.v, |delta, rate, gradient| {
            let f = self.law(delta, rate).force;
            if f != 0.0 {
                // g = dV/dq: the force pushes along -G_delta (reducing the penetration).
                for (k, &i) in self.gap.dofs().iter().enumerate() {
                    forces[i] += f * -gradient[k];
                }
            }
        })
    }

    fn add_tangent(&self, x: &Kin, c: &TangentCoefficients, block: &mut [f64]) {
        if self.penetration(x.q) <= 0.0 {
            return;
        }
        self.with_geometry(x.q, x.v, |delta, rate, gap_gradient, gap_hessian| {
            let law = self.law(delta, rate);
            if law.force == 0.0 {
                return;
            }
            let dofs = self.gap.dofs();
            let n = dofs.len();
            // The gradient and Hessian of delta, and H_delta v (on the stack for measures).
            let (mut small, mut large) = ([0.0; 3 * MAX_DOFS], Vec::new());
            let scratch: &mut [f64] = if n <= MAX_DOFS {
                &mut small[..3 * n]
            } else {
                large.resize(3 * n, 0.0);
                &mut large
            };
            let (gradient, rest) = scratch.split_at_mut(n);
            let (hv, _) = rest.split_at_mut(n);
            for (g, s) in gradient.iter_mut().zip(gap_gradient) {
                *g = -s;
            }
            let hessian = |a: usize, b: usize| -gap_hessian[a * n + b];
            for (a, h) in hv.iter_mut().enumerate() {
                *h = (0..n).map(|b| hessian(a, b) * x.v[dofs[b]]).sum();
            }
            for a in 0..n {
                for b in 0..n {
                    let k = gradient[a] * (law.d_penetration * gradient[b] + law.d_rate * hv[b])
                        + law.force * hessian(a, b);
                    let cc = law.d_rate * gradient[a] * gradient[b];
                    block[a * n + b] += c.stiffness * k + c.damping * cc;
                }
            }
        })
    }

    /// Elastic energy K delta^(n+1)/(n+1) of eq. 8.
    fn energy(&self, x: &Kin) -> Energy {
        let delta = self.penetration(x.q);
        let potential =
            if delta > 0.0 { self.stiffness * delta.powf(self.exponent + 1.0) / (self.exponent + 1.0) } else { 0.0 };
        Energy { kinetic: 0.0, potential }
    }

    /// (F - F_k) times the penetration's rate over the step (at an instant, (F - F_k) delta',
    /// never negative): the hysteresis damping of eq. 9, and the elastic force lost to the
    /// no-tension clamp while separating.
    fn power(&self, x: &Kin, stride: &Stride) -> EnergyFlow {
        if self.penetration(x.q) <= 0.0 {
            return EnergyFlow::default();
        }
        let law = self.evaluate(x.q, x.v);
        EnergyFlow { dissipated: (law.force - law.elastic) * stride.rate(|q| self.penetration(q)), supplied: 0.0 }
    }

    const NON_CONSERVATIVE: bool = true;
    const MEMORY: Option<MemoryKind> = Some(MemoryKind::Contact);
    /// Open, the contact's block is zero.
    const SWITCHES: bool = true;

    fn record(&mut self, q: &[f64], v: &[f64], t: f64) {
        Contact::record(self, q, v, t);
    }

    fn memory(&self) -> Option<Memory> {
        Some(Memory::Contact(self.memory))
    }

    fn set_memory(&mut self, m: Memory) {
        if let Memory::Contact(c) = m {
            self.memory = c;
        }
    }

    const CONTACT_TIME_SCALE: bool = true;

    /// The first impact that overran the radii (`Overrun`), once one has: from then on the
    /// results are not those of the contact law (a probe's spheres at 1e5 m/s, delta* = 0.2 m
    /// against radii of 0.01 m, passed through each other without a word).
    fn impact_warning(&self) -> Option<String> {
        let Overrun { t, depth, speed } = self.overrun?;
        let name = if self.name.is_empty() { "a contact".to_string() } else { format!("contact '{}'", self.name) };
        // Two centres cross each other; a centre below a plane is still pushed back out (a
        // probe's ball at 200 m/s rebounded and was told it had passed through).
        // The penetration is the undamped law's: with e < 1 the damping may stop them sooner (a
        // probe's spheres at e = 0.6 came back from 0.089 m of the 0.1 m radii).
        let outcome = match (self.gap.is_centre_distance(), self.restitution < 1.0) {
            (true, true) => {
                "the bodies pass through each other unless the damping stops them first (the penetration is that \
                 of the undamped law)"
            }
            (true, false) => "the bodies pass through each other",
            (false, _) => "the centre passes the plane's surface, and the rebound is the law's far outside its range",
        };
        Some(format!(
            "{name}: the impact at t = {t:.4e} at {speed:.4e} m/s needs a penetration of {depth:.4e} m to stop with \
             this stiffness, more than the radii ({} m): {outcome} (Hertz's law holds for penetrations small against \
             the radii); raise `stiffness` or use method = \"constraint\"",
            Compact(self.reach)
        ))
    }

    /// Whether the contact is closing, or in an impact or struck (`Contact::phase`): decided
    /// from the penetration, its rate and the contact's history, without its effective mass.
    fn contact_outlook(&self, q: &[f64], v: &[f64], t: f64, horizon: f64) -> ContactOutlook {
        self.with_rate(q, v, |delta, rate, _| match self.phase(delta, rate, t, horizon) {
            Phase::Free => ContactOutlook::NONE,
            Phase::Closing(_) => ContactOutlook { closing: true, in_impact: false },
            Phase::Impact | Phase::Start | Phase::Struck => ContactOutlook { closing: false, in_impact: true },
        })
    }

    /// While closed (delta > 0, or delta = 0 and closing): `fraction` of the duration of an
    /// impact with this law's elastic part and the current normal energy
    /// (src/mechanics/forces/impact_duration.rs), m_eff = 1/(G^T M_c^-1 G) along the gap
    /// gradient G. While open but closing at a rate that reaches contact within `horizon`: the
    /// time to contact at that rate plus the same for an impact at that rate, so that a step
    /// ends inside the impact, where its onset is located (a longer step could pass over a
    /// whole impact, with no sign change of the penetration at its ends). A contact closed for
    /// longer than `SUSTAINED` impact durations (at its onset speed, with m_eff at the impact's
    /// first step, both stored in the history there) is no longer an impact but a sustained
    /// contact (resting, rolling, pressed): nothing excites its oscillation at the contact's
    /// own time scale, and the method's step resolves its slow motion, so it sets no limit (a
    /// resting contact would otherwise keep the step at a fraction of its natural period for
    /// ever) and asks for no effective mass. Until it is struck (`STRUCK`): then a new impact
    /// starts at `t`, with the duration of an impact of the current normal energy.
    fn contact_step_limit(
        &mut self,
        q: &[f64],
        v: &[f64],
        t: f64,
        horizon: f64,
        fraction: f64,
        inverse_mass: &mut dyn FnMut(&[usize], &[f64]) -> f64,
    ) -> Option<f64> {
        let (k, n) = (self.stiffness, self.exponent);
        let (limit, memory, overrun) = self.with_rate(q, v, |delta, rate, gradient| {
            let mut m = self.memory;
            let mut overrun = None;
            // An impact whose approach speed the law stops only beyond the radii: the bodies
            // pass through each other (two spheres' centres cross) or the sphere's centre
            // passes its plane; Hertz's law holds for penetrations small against the radii. The
            // speed alone (from delta = 0): a contact that starts deep at rest is warned of at
            // assembly (`contacts::deep_start_warning`), not as an impact at 0 m/s.
            let mut check = |w: f64| {
                let depth = largest_penetration(k, n, w, 0.0, rate).unwrap_or(0.0);
                if self.reach > 0.0 && depth > self.reach {
                    overrun = Some(Overrun { t, depth, speed: rate.abs() });
                }
            };
            let limit = match self.phase(delta, rate, t, horizon) {
                Phase::Free => None,
                Phase::Closing(onset) => {
                    let w = inverse_mass(self.gap.dofs(), gradient);
                    // Nor longer than the same fraction of the time to cross the radii at that
                    // rate: an impact the law stops only beyond them (`check`) lasts longer than
                    // the crossing, and a step of its fraction passed over the whole contact,
                    // which was then never closed at a step's end (a probe's spheres at 1e5 m/s
                    // against K = 1e8: no impact, no warning, momentum half exchanged).
                    let crossing = if self.reach > 0.0 { self.reach / rate } else { f64::INFINITY };
                    impact_duration(k, n, w, 0.0, rate).map(|duration| onset + fraction * duration.min(crossing))
                }
                Phase::Impact => {
                    let w = inverse_mass(self.gap.dofs(), gradient);
                    check(w);
                    impact_duration(k, n, w, delta.max(0.0), rate).map(|duration| fraction * duration)
                }
                Phase::Start => {
                    let w = inverse_mass(self.gap.dofs(), gradient);
                    check(w);
                    // The impact of the onset speed; for a contact that closed at rest (or
                    // started closed: a body placed into the ground) the energy it holds now,
                    // which it gives back at its own time scale.
                    let impact = impact_duration(k, n, w, 0.0, m.impact)
                        .or_else(|| impact_duration(k, n, w, delta.max(0.0), rate));
                    if !w.is_nan() {
                        m.duration = impact.unwrap_or(0.0);
                        m.inverse_mass = w;
                    }
                    if impact.is_none_or(|duration| t - m.start > SUSTAINED * duration) {
                        None
                    } else {
                        impact_duration(k, n, w, delta.max(0.0), rate).map(|duration| fraction * duration)
                    }
                }
                Phase::Struck => {
                    let w = inverse_mass(self.gap.dofs(), gradient);
                    check(w);
                    let impact = impact_duration(k, n, w, delta.max(0.0), rate);
                    if !w.is_nan() {
                        m.start = t;
                        m.duration = impact.unwrap_or(0.0);
                        m.inverse_mass = w;
                    }
                    impact.map(|duration| fraction * duration)
                }
            };
            (limit, m, overrun)
        });
        self.memory = memory;
        self.overrun = self.overrun.or(overrun);
        limit
    }

    /// One event: the penetration (contact onset and separation are its zeros).
    fn event_count(&self) -> usize {
        1
    }

    fn event_functions(&self, q: &[f64], out: &mut [f64]) {
        out[0] = self.penetration(q);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanics::kinematics::{Anchor, Measure, MeasureKind};

    #[test]
    fn exact_factor_satisfies_its_relation_and_inverts() {
        for e in [0.05, 0.3, 0.6, 0.9, 0.99] {
            let c = exact_damping_factor(e);
            let residual = (1.0 + e) * c - ((1.0 + c) / (1.0 - e * c)).ln();
            let back = restitution_of_damping_factor(c);
            let ln = restitution_of_damping_factor(DampingModel::LankaraniNikravesh.factor(e));
            println!(
                "e = {e}: exact c = {c:.6}, residual {residual:.1e}, back {back:.12}; eq. 10 c = {:.6} gives e' = {ln:.4}",
                0.75 * (1.0 - e * e)
            );
            assert!(residual.abs() < 1e-6 && e * c < 1.0);
            assert!((back - e).abs() < 1e-9);
            assert!(ln > e);
        }
        assert_eq!(exact_damping_factor(1.0), 0.0);
    }

    #[test]
    fn tangent_matches_finite_differences() {
        // A circle on a rigid body against a tilted ground plane.
        let m = Measure::new(
            Anchor::Ground { p: [0.0, 0.0] },
            Anchor::Rigid { x: 0, s: [0.1, 0.05] },
            MeasureKind::Projection { u: [0.6, 0.8], rotating: false },
        );
        let mut c = Contact::new(ContactGap::Measure(m), 0.25, 1e6, 0.5, DampingModel::Exact, 1e-3);
        c.set_memory(ContactMemory { approach: 2.0, impact: 2.0, onset: 0.0, ..ContactMemory::NONE });
        let q = [0.05, 0.08, 0.3];
        let v = [0.4, -1.2, 2.0];
        let force = |q: &[f64], v: &[f64]| {
            let mut f = vec![0.0; 3];
            let x = Kin::without_inputs(q, v, v, 0.0);
            c.add_forces(&x, &mut [0.0; 3], &mut f);
            f
        };
        assert!(c.penetration(&q) > 0.0 && c.evaluate(&q, &v).force > 0.0 && c.evaluate(&q, &v).rate != 0.0);
        let x = Kin::without_inputs(&q, &v, &v, 0.0);
        let mut kb = vec![0.0; 9];
        c.add_tangent(&x, &TangentCoefficients { mass: 0.0, damping: 0.0, stiffness: 1.0, lambda: 0.0 }, &mut kb);
        let mut cb = vec![0.0; 9];
        c.add_tangent(&x, &TangentCoefficients { mass: 0.0, damping: 1.0, stiffness: 0.0, lambda: 0.0 }, &mut cb);
        let h = 1e-7;
        let mut worst: f64 = 0.0;
        for j in 0..3 {
            let (mut qp, mut qm, mut vp, mut vm) = (q, q, v, v);
            qp[j] += h;
            qm[j] -= h;
            vp[j] += h;
            vm[j] -= h;
            let (fqp, fqm, fvp, fvm) = (force(&qp, &v), force(&qm, &v), force(&q, &vp), force(&q, &vm));
            for i in 0..3 {
                let dk = (fqp[i] - fqm[i]) / (2.0 * h);
                let dc = (fvp[i] - fvm[i]) / (2.0 * h);
                worst = worst
                    .max((dk - kb[i * 3 + j]).abs() / (1.0 + dk.abs()))
                    .max((dc - cb[i * 3 + j]).abs() / (1.0 + dc.abs()));
            }
        }
        println!("contact tangent vs central differences: worst relative error {worst:.2e}");
        assert!(worst < 1e-6);
    }
}
