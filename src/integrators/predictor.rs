//! What Newton's predictor knows of earlier stages: the stage values a method keeps of a step
//! (`StageMemory`) and the polynomial extrapolation through them. Used by the Newton solver
//! (`StepContext::predict_stage`) and by the methods that record their stages; depends on
//! neither, so newton.rs and stages.rs do not import each other.

/// A known (time, a, lambda) for a predictor.
pub type Known<'a> = (f64, &'a [f64], &'a [f64]);

/// What a method keeps of a step for the next step's Newton predictor (allocated once): the
/// accelerations and multipliers of up to three stages with their times relative to the
/// step's start, the extrapolation's error at each stage, and which of the two predictions
/// (`StepContext::predict_stage`), the corrected extrapolation or the line, came closer.
pub struct StageMemory {
    /// Number of stage values and of predictor errors recorded.
    values: usize,
    errors: usize,
    value: [(f64, Vec<f64>, Vec<f64>); 3],
    error: [(Vec<f64>, Vec<f64>); 3],
    /// Per stage: the corrected extrapolation and the linear one of a, and whether the
    /// corrected one was at least as close to the solution.
    corrected: [Vec<f64>; 3],
    linear: [Vec<f64>; 3],
    prefer_corrected: [bool; 3],
}

impl StageMemory {
    pub fn new(n: usize, m: usize) -> Self {
        let v = || (0.0, vec![0.0; n], vec![0.0; m]);
        let e = || (vec![0.0; n], vec![0.0; m]);
        let z = || vec![0.0; n];
        StageMemory {
            values: 0,
            errors: 0,
            value: [v(), v(), v()],
            error: [e(), e(), e()],
            corrected: [z(), z(), z()],
            linear: [z(), z(), z()],
            prefer_corrected: [true; 3],
        }
    }

    pub fn clear(&mut self) {
        self.values = 0;
        self.errors = 0;
    }

    /// Record the stage value (a, lambda) at time t (relative to the step's start), in time
    /// order; ignored beyond three or for other sizes.
    pub fn push_value(&mut self, t: f64, a: &[f64], lambda: &[f64]) {
        if let Some(slot) = self.value.get_mut(self.values)
            && slot.1.len() == a.len()
            && slot.2.len() == lambda.len()
        {
            slot.0 = t;
            slot.1.copy_from_slice(a);
            slot.2.copy_from_slice(lambda);
            self.values += 1;
        }
    }

    /// The recorded stage values.
    pub fn values(&self) -> impl Iterator<Item = Known<'_>> {
        self.value[..self.values].iter().map(|(t, a, l)| (*t, &a[..], &l[..]))
    }

    /// The predictor's error at stage k (a - a_predicted, lambda - lambda_predicted).
    pub fn error(&self, k: usize) -> Option<(&[f64], &[f64])> {
        (k < self.errors).then(|| (&self.error[k].0[..], &self.error[k].1[..]))
    }

    /// The line through the two latest stage values at stage k (a, lambda), as predicted.
    pub fn line(&self, k: usize) -> Option<(&[f64], &[f64])> {
        Some((self.linear.get(k)?, &self.error.get(k)?.1))
    }

    /// Whether the corrected extrapolation came at least as close as the line at stage k
    /// (true if unknown).
    pub fn prefers_corrected(&self, k: usize) -> bool {
        k >= self.errors || self.prefer_corrected[k]
    }

    /// Stage k's slots for the uncorrected, corrected and linear predictions of a (and the
    /// prediction of lambda), kept until `finish_error(k, ..)`.
    #[allow(clippy::type_complexity)]
    pub(super) fn prediction_slots(
        &mut self,
        k: usize,
    ) -> Option<((&mut Vec<f64>, &mut Vec<f64>), &mut Vec<f64>, &mut Vec<f64>)> {
        self.errors = self.errors.min(k);
        let (a, l) = self.error.get_mut(k)?;
        Some(((a, l), self.corrected.get_mut(k)?, self.linear.get_mut(k)?))
    }

    /// Turn stage k's stored prediction into its error, given the stage's solution.
    pub fn finish_error(&mut self, k: usize, a: &[f64], lambda: &[f64]) {
        if let Some((ea, el)) = self.error.get_mut(k)
            && ea.len() == a.len()
            && el.len() == lambda.len()
        {
            for (e, x) in ea.iter_mut().zip(a) {
                *e = x - *e;
            }
            for (e, x) in el.iter_mut().zip(lambda) {
                *e = x - *e;
            }
            let miss = |p: &[f64]| p.iter().zip(a).fold(0.0f64, |m, (p, x)| m.max((x - p).abs()));
            let (corrected, linear) = (miss(&self.corrected[k]), miss(&self.linear[k]));
            self.prefer_corrected[k] = corrected <= linear || corrected.is_nan() || linear.is_nan();
            self.errors = k + 1;
        }
    }

    /// What the next step's predictor reads of this memory (`StepContext::predict_stage`:
    /// the stage values, the errors and which prediction came closer), for a snapshot; the
    /// per-stage predictions (`corrected`, `linear`) are scratch of the step that made them.
    pub fn record(&self) -> StageRecord {
        StageRecord {
            values: self.value[..self.values].to_vec(),
            errors: self.error[..self.errors].to_vec(),
            prefer_corrected: self.prefer_corrected,
        }
    }

    /// Overwrite with a `record` of a memory of the same sizes (checked by
    /// `StageRecord::check`), reusing the allocations.
    pub fn restore(&mut self, record: &StageRecord) {
        for (mine, theirs) in self.value.iter_mut().zip(&record.values) {
            mine.0 = theirs.0;
            mine.1.copy_from_slice(&theirs.1);
            mine.2.copy_from_slice(&theirs.2);
        }
        for (mine, theirs) in self.error.iter_mut().zip(&record.errors) {
            mine.0.copy_from_slice(&theirs.0);
            mine.1.copy_from_slice(&theirs.1);
        }
        self.prefer_corrected = record.prefer_corrected;
        self.values = record.values.len();
        self.errors = record.errors.len();
    }

    /// Overwrite with `other` (reusing the allocations).
    pub fn copy_from(&mut self, other: &StageMemory) {
        for (mine, theirs) in self.value.iter_mut().zip(&other.value[..other.values]) {
            mine.0 = theirs.0;
            mine.1.clone_from(&theirs.1);
            mine.2.clone_from(&theirs.2);
        }
        for (mine, theirs) in self.error.iter_mut().zip(&other.error[..other.errors]) {
            mine.0.clone_from(&theirs.0);
            mine.1.clone_from(&theirs.1);
        }
        self.prefer_corrected = other.prefer_corrected;
        self.values = other.values;
        self.errors = other.errors;
    }
}

/// A `StageMemory` as a snapshot carries it (`StageMemory::record`): up to three stage values
/// (time from the step's start, a, lambda), the predictor's errors at the first stages (a,
/// lambda) and, per stage, whether the corrected extrapolation came at least as close as the
/// line.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StageRecord {
    values: Vec<(f64, Vec<f64>, Vec<f64>)>,
    errors: Vec<(Vec<f64>, Vec<f64>)>,
    prefer_corrected: [bool; 3],
}

impl StageRecord {
    /// Whether the record fits a system of n coordinates and m multipliers: at most three
    /// entries of these lengths, all finite.
    pub fn check(&self, n: usize, m: usize) -> Result<(), String> {
        if self.values.len() > 3 || self.errors.len() > 3 {
            return Err(format!(
                "the predictor's memory holds {} stage values and {} errors (at most 3)",
                self.values.len(),
                self.errors.len()
            ));
        }
        let vectors = self.values.iter().map(|(_, a, l)| (a, l)).chain(self.errors.iter().map(|(a, l)| (a, l)));
        for (a, l) in vectors {
            if a.len() != n || l.len() != m {
                return Err(format!(
                    "the predictor's memory belongs to a different model ({} and {} entries, expected {n} and {m})",
                    a.len(),
                    l.len()
                ));
            }
            if !a.iter().chain(l).all(|x| x.is_finite()) {
                return Err("the predictor's memory holds a non-finite number".into());
            }
        }
        if !self.values.iter().all(|(t, _, _)| t.is_finite()) {
            return Err("the predictor's memory holds a non-finite time".into());
        }
        Ok(())
    }
}

/// Polynomial extrapolation to time `tau` through the points (t_i, x_i) (Lagrange's form,
/// degree = number of points - 1, at most 3): out = sum_i l_i(tau) x_i.
pub fn extrapolate_through(tau: f64, points: &[(f64, &[f64])], out: &mut [f64]) {
    let k = points.len().min(4);
    let mut w = [0.0; 4];
    for i in 0..k {
        w[i] = (0..k).filter(|&j| j != i).fold(1.0, |l, j| l * (tau - points[j].0) / (points[i].0 - points[j].0));
    }
    // Point by point over all coordinates (vectorizes); each sum still runs over the points in order.
    out.fill(0.0);
    for ((_, x), w) in points[..k].iter().zip(w) {
        for (o, x) in out.iter_mut().zip(*x) {
            *o += w * x;
        }
    }
}
