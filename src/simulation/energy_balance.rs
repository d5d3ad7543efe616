//! The energy balance of a run: energy_total + energy_dissipated − energy_supplied is
//! constant for the exact motion. A run whose balance changed by more than a small part of the
//! largest energy in play has not found the motion: `simulate` warns at its end, and a run that
//! stops on a failed step says so beside the failure (in the command line's error and the
//! FMU's log), since the failure is then only the symptom.

/// A gain of more than this fraction of the largest energy in play is no physics. Losses are
/// allowed ten times more, as the methods' numerical damping (rho_inf < 1) removes the energy
/// of motions the step does not resolve and `energy_dissipated` does not count it (the examples
/// lose up to 2.6 %: the impact beam, a suddenly loaded cantilever).
const GAIN_LIMIT: f64 = 0.01;
const LOSS_LIMIT: f64 = 0.1;

/// Changes below this many joules per coordinate are round-off of a model at rest, not of a
/// motion (a free body at rest "changed by 5.3e-53 J, 65 % of the largest energy in play
/// (8.2e-53 J)", a probe's model; an unloaded steel cantilever at rest, its elastic forces'
/// round-off, "changed by 2.3e-23 J, 96.7 % of the largest energy in play (2.4e-23 J)",
/// another's; a 1000-element beam at rest 5.2e-20 J, the round-off growing with the elements,
/// a third's): mechanical models move with far more (a MEMS resonator ~1e-15 J; kT at room
/// temperature is 4e-21 J).
const ROUNDOFF_ENERGY_PER_COORDINATE: f64 = 1e-20;

/// The strain energy of a coordinate displaced by its round-off, 1/2 k (eps |q|)^2 with k the
/// largest stiffness, grows with the model's distance from the origin: a probe's 1000-element
/// steel beam at rest 30 m from it "changed by 1.3e-16 J, 33.7 % of the largest energy in
/// play", where this estimate is 2.1e-15 J.
fn displacement_roundoff(largest_stiffness: f64, size: f64) -> f64 {
    let displacement = f64::EPSILON * size;
    0.5 * largest_stiffness * displacement * displacement
}

/// Changes below this fraction of the balance's own size are the round-off of the energies it
/// sums (a potential m g z is known to ulps of itself): a probe's body locked by two parallel,
/// non-coaxial hinges "changed by 8.7e-15 J, 100 % of the largest energy in play" of a 4.9 J
/// potential.
const ROUNDOFF_FRACTION: f64 = 1e-12;

/// The energies of a state (J): kinetic, potential (gravity, springs, strain), and dissipated
/// and supplied since the start.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct EnergySample {
    pub kinetic: f64,
    pub potential: f64,
    pub dissipated: f64,
    pub supplied: f64,
}

impl EnergySample {
    /// energy_total + energy_dissipated - energy_supplied: constant for the exact motion.
    pub fn balance(&self) -> f64 {
        self.kinetic + self.potential + self.dissipated - self.supplied
    }

    /// The energy in play at this state: the kinetic energy, or the energy dissipated or
    /// supplied, the largest. The potential energy's level is no measure: m g z counts from an
    /// arbitrary origin (a probe's oscillator losing 22 % of its energy was warned of at z = 0
    /// and not at z = 10 m, where |m g z| was the energy in play); what it exchanges with the
    /// motion shows in the kinetic energy, taken at every step (`BalanceWatch::observe`).
    fn in_play(&self) -> f64 {
        self.kinetic.max(self.dissipated.abs()).max(self.supplied.abs())
    }
}

/// The balance at the start of a run, the largest energy in play seen since (at its
/// communication points, and its steps' largest kinetic energy), and the largest gain and loss
/// of the balance seen at its communication points: a diagnosis, not part of the simulation's
/// state (a restored state keeps the values of this run).
#[derive(Debug, Clone, Copy)]
pub struct BalanceWatch {
    start: f64,
    /// The model's round-off energy (J): `ROUNDOFF_ENERGY_PER_COORDINATE` or
    /// `displacement_roundoff`, the larger, per coordinate.
    roundoff: f64,
    in_play: f64,
    /// (change, time) of the largest gain and of the largest loss at a communication point.
    gain: (f64, f64),
    loss: (f64, f64),
}

impl BalanceWatch {
    /// From the energies at the start (`Simulation::energy_balance`) of a model of
    /// `coordinates` coordinates, its largest stiffness (N/m or N m/rad,
    /// `System::largest_stiffness`) and its size (1 + the largest |q|, m).
    pub fn new(start: EnergySample, coordinates: usize, largest_stiffness: f64, size: f64) -> BalanceWatch {
        let per_coordinate = ROUNDOFF_ENERGY_PER_COORDINATE.max(displacement_roundoff(largest_stiffness, size));
        let roundoff = per_coordinate * coordinates.max(1) as f64;
        BalanceWatch { start: start.balance(), roundoff, in_play: start.in_play(), gain: (0.0, 0.0), loss: (0.0, 0.0) }
    }

    /// Note the energies at a communication point at time t and the largest kinetic energy of
    /// the steps since the last (rows at the turning points of an oscillation see none of it:
    /// a probe's were warned of "37.8 % of the largest energy in play" for 2e-5 of it). The
    /// largest gain and loss are kept, although the run may come back: a heavy top drawn 1e15
    /// m from the origin gained 3.4e6 J of its 38 J and ended 38 J short, 1e-5 of the largest
    /// energy in play and so no warning at its end (a probe).
    pub fn observe(&mut self, sample: EnergySample, peak_kinetic: f64, t: f64) {
        self.in_play = self.in_play.max(sample.in_play()).max(peak_kinetic);
        let drift = self.change(sample.balance());
        if drift > self.gain.0 {
            self.gain = (drift, t);
        }
        if drift < self.loss.0 {
            self.loss = (drift, t);
        }
    }

    /// The balance's change since the start (J) at the current `balance`.
    pub fn change(&self, balance: f64) -> f64 {
        balance - self.start
    }

    /// Whether a change `drift` of the balance to `balance` is beyond the limits for the
    /// energy in play `in_play` (and beyond round-off).
    fn beyond(&self, drift: f64, balance: f64, in_play: f64) -> bool {
        let roundoff = self.roundoff.max(ROUNDOFF_FRACTION * self.start.abs().max(balance.abs()));
        drift.abs() > roundoff && (drift > GAIN_LIMIT * in_play || -drift > LOSS_LIMIT * in_play)
    }

    /// What to tell of the run at the current energies, if its balance changed by more than
    /// the limits, at its end or at a communication point before
    /// (`observe`), judged by the largest energy in play of the whole run. A gain at rho_inf = 1
    /// is the method's instability on a stiff nonlinear model (the trapezoidal rule on flexible
    /// beams, Simo & Tarnow, ZAMP 43, 1992: a driven four-bar with a steel coupler grew from
    /// 1.2 J to 3.3e4 J in 0.18 s with every method at rho_inf = 1, and ran at 0.5), which a
    /// smaller step does not cure.
    pub fn warning(&self, now: EnergySample, rho_inf: f64, error_control: bool) -> Option<String> {
        let balance = now.balance();
        let (end, in_play) = (self.change(balance), self.in_play.max(now.in_play()));
        let (drift, at) = if self.beyond(end, balance, in_play) {
            (end, String::new())
        } else {
            let (drift, t) =
                [self.gain, self.loss].into_iter().find(|&(d, _)| self.beyond(d, self.start + d, in_play))?;
            // To 12 digits: a communication point summed from its steps (0.41000000000000003).
            let t = format!("{t:.11e}").parse().unwrap_or(t);
            (drift, format!(" at t = {} (and by {end:.3e} J at the end)", crate::compact_number::Compact(t)))
        };
        let advice = if drift > 0.0 && rho_inf >= 1.0 {
            "at rho_inf = 1 nothing damps the motions the step does not resolve, and a stiff nonlinear model \
             (flexible beams) can grow unstable: take rho_inf < 1 (the default 0.5)"
        } else if error_control {
            // A probe's run with error_control on and rtol = atol = 0.9 was told to turn it on.
            "the steps do not resolve this motion; try a smaller rtol and atol"
        } else {
            // A load pulse a few steps long is the likelier cause in a structure whose
            // vibration the step resolves (probe 40d: 2-5 step pulses "gained" 1.6-11 % while
            // the beams' frequencies were right to 1e-4; the response was 2.7 % low).
            "the step does not resolve this motion, or a load that changes within a few steps; try a smaller step \
             or error_control = true"
        };
        // At least what changed was in play: steps too long to see a swing's kinetic energy
        // gave "8041.1 % of the largest energy in play" for the loss of all of it (a probe).
        let in_play = in_play.max(drift.abs());
        Some(format!(
            "the energy balance (energy_total + energy_dissipated - energy_supplied) changed by {drift:.3e} J{at}, \
             {:.1} % of the largest energy in play ({in_play:.3e} J): {advice}",
            100.0 * drift.abs() / in_play
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Energies with the kinetic energy k and the potential p.
    fn e(k: f64, p: f64) -> EnergySample {
        EnergySample { kinetic: k, potential: p, ..Default::default() }
    }

    /// A model at rest: its "energies" are round-off (a probe's free body: 5.3e-53 J of
    /// 8.2e-53 J) and no warning is due; a gain of 2 % of a joule is.
    #[test]
    fn round_off_at_rest_is_no_change_but_a_gain_is() {
        let rest = BalanceWatch::new(e(8.2e-53, 0.0), 1, 0.0, 1.0);
        assert_eq!(rest.warning(e(8.2e-53 + 5.3e-53, 0.0), 0.5, false), None);
        let unloaded = BalanceWatch::new(e(2.375e-23, 0.0), 1, 0.0, 1.0);
        assert_eq!(unloaded.warning(e(2.375e-23 + 2.297e-23, 0.0), 0.5, false), None);
        // A 1000-element beam at rest (3003 coordinates): its round-off is 5.2e-20 J.
        let beam = BalanceWatch::new(e(5.4e-20, 0.0), 3003, 0.0, 1.0);
        assert_eq!(beam.warning(e(5.4e-20 + 5.2e-20, 0.0), 0.5, false), None);
        // A 1000-element steel beam at rest 30-40 m from the origin (EA / l = 5.25e10 N/m):
        // 1.3e-16 J is its position round-off there, not near the origin.
        let far = BalanceWatch::new(e(3.8e-16, 0.0), 3003, 5.25e10, 41.0);
        assert_eq!(far.warning(e(3.8e-16 + 1.3e-16, 0.0), 0.5, false), None);
        let near = BalanceWatch::new(e(3.8e-16, 0.0), 3003, 5.25e10, 1.0);
        assert!(near.warning(e(3.8e-16 + 1.3e-16, 0.0), 0.5, false).is_some());
        let moving = BalanceWatch::new(e(1.0, 0.0), 1, 0.0, 1.0);
        assert!(moving.warning(e(1.02, 0.0), 0.5, false).is_some_and(|w| w.contains("2.0 %")));
        assert_eq!(moving.warning(e(1.005, 0.0), 0.5, false), None);
        // A body that cannot move, its potential 4.9 J: the balance's round-off is no change.
        let locked = BalanceWatch::new(e(0.0, 4.905), 1, 0.0, 1.0);
        assert_eq!(locked.warning(e(0.0, 4.905 + 8.7e-15), 0.5, false), None);
        assert!(locked.warning(e(0.0, 4.905 + 1e-9), 0.5, false).is_some());
        // A gain that went away again is told with its time.
        let mut transient = BalanceWatch::new(e(1.0, 0.0), 1, 0.0, 1.0);
        transient.observe(e(1e6, 0.0), 0.0, 0.5);
        transient.observe(e(0.0, 0.0), 0.0, 1.0);
        let w = transient.warning(e(0.999, 0.0), 0.5, false).unwrap();
        assert!(w.contains("changed by 1.000e6 J at t = 0.5 (and by -1.000e-3 J at the end), 100.0 %"), "{w}");
        // With error control on, the advice is its tolerances.
        assert!(moving.warning(e(1.02, 0.0), 0.5, true).is_some_and(|w| w.contains("smaller rtol and atol")));
    }

    /// An oscillator of 12.5 J (1 kg) that loses 2.83 J is warned of wherever it is: its
    /// potential m g z counts from the origin, and at z = 1e4 m it made the energy in play
    /// 9.8e4 J, so the loss went unreported (a probe). Its kinetic energy is in play, not the
    /// potential's level; and the steps' largest kinetic energy counts where the rows see the
    /// oscillation at its turning points only (a probe's loss of 2e-5 of it was "37.8 %").
    #[test]
    fn a_loss_is_judged_by_the_energy_exchanged_not_the_potentials_level() {
        for z in [0.0, 10.0, 1e4] {
            let level = 9.81 * z;
            let mut watch = BalanceWatch::new(e(12.5, level), 2, 1000.0, 1.0 + z);
            watch.observe(e(0.0, level + 12.0), 12.4, 0.1);
            let w = watch.warning(e(12.5 - 2.83, level), 0.5, false);
            assert!(
                w.as_ref().is_some_and(|w| w.contains("changed by -2.830e0 J") && w.contains("22.6 %")),
                "z = {z}: {w:?}"
            );
        }
        let mut turning = BalanceWatch::new(e(0.0, 0.5), 2, 100.0, 1.0);
        for k in 1..=100 {
            turning.observe(e(0.0, 0.5 - 1.16e-7 * k as f64), 0.5, 0.63 * k as f64);
        }
        assert_eq!(turning.warning(e(0.0, 0.5 - 1.16e-5), 0.5, false), None);
        let mut lost = BalanceWatch::new(e(0.0, 0.5), 2, 100.0, 1.0);
        lost.observe(e(0.0, 0.3), 0.5, 0.63);
        let w = lost.warning(e(0.0, 0.3), 0.5, false);
        assert!(w.as_ref().is_some_and(|w| w.contains("40.0 % of the largest energy in play (5.000e-1 J)")), "{w:?}");
        // Steps that never saw the swing's kinetic energy: all of it lost is 100 %.
        let mut unseen = BalanceWatch::new(e(0.0, 0.5), 2, 100.0, 1.0);
        unseen.observe(e(0.0, 0.0), 6.2e-3, 20.0);
        let w = unseen.warning(e(0.0, 0.0), 0.0, false);
        assert!(w.as_ref().is_some_and(|w| w.contains("100.0 % of the largest energy in play (5.000e-1 J)")), "{w:?}");
    }
}
