//! The one interface of the integration methods: each method is a type implementing
//! [`TimeIntegrator`], built from rho_inf, that advances a [`State`] by one step through a
//! [`StepContext`] (system, Newton workspace and settings, statistics). The rules of a method
//! (its name, the range of rho_inf it realises, how its parameters follow from rho_inf) live
//! with its type; [`Method`] lists the methods in their FMU code order.

use std::fmt;

use super::newton::{NewtonError, StepContext};
use super::stages::StepBuffers;
use super::{Method, State};

pub trait TimeIntegrator: fmt::Debug + Send + Sync {
    /// The method's name on the command line, in model files and in the FMU.
    fn name() -> &'static str
    where
        Self: Sized;

    /// The range of the spectral radius at infinity the method can realise.
    fn rho_inf_range() -> (f64, f64)
    where
        Self: Sized;

    /// The method's parameters for rho_inf (within `rho_inf_range`).
    fn from_rho_inf(rho_inf: f64) -> Self
    where
        Self: Sized;

    /// Which method this is.
    fn method(&self) -> Method;

    /// The times at which a step of size h from t evaluates the system (with the same
    /// floating-point expressions as the method's stages), for `Dynamics::prepare`.
    fn evaluation_times(&self, t: f64, h: f64) -> [f64; 4];

    /// One step of size h from `s` into `out`, with the scratch vectors `b`.
    fn step(
        &self,
        cx: &mut StepContext,
        b: &mut StepBuffers,
        s: &State,
        h: f64,
        out: &mut State,
    ) -> Result<(), NewtonError>;
}

/// A method with its parameters derived from rho_inf.
#[derive(Debug)]
pub struct Integrator(Box<dyn TimeIntegrator>);

impl Integrator {
    /// The method's parameters for `rho_inf`, an error if the method cannot realise it.
    pub fn new(method: Method, rho_inf: f64) -> Result<Self, String> {
        let (lo, hi) = method.rho_inf_range();
        if !(lo..=hi).contains(&rho_inf) {
            return Err(format!("rho_inf = {rho_inf} is outside [{lo}, {hi}] for {method}"));
        }
        Ok(Integrator(method.build(rho_inf)))
    }

    pub fn method(&self) -> Method {
        self.0.method()
    }
}

impl std::ops::Deref for Integrator {
    type Target = dyn TimeIntegrator;
    fn deref(&self) -> &Self::Target {
        &*self.0
    }
}
