//! The list of methods: names, rho_inf rules and FMU codes, each taken from the method's type.

use std::fmt;
use std::str::FromStr;

use super::bathe::BatheParameters;
use super::generalized_alpha::GeneralizedAlphaParameters;
use super::hht::HhtParameters;
use super::integrator::TimeIntegrator;
use super::newmark::Newmark;
use super::ttbif::TtbifParameters;

/// The integration methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    Ttbif,
    Hht,
    GeneralizedAlpha,
    Newmark,
    /// rho_inf-Bathe composite method (paper 002; Noh & Bathe 2019).
    Bathe,
}

/// What the program knows of a method before it is built.
struct Rules {
    name: &'static str,
    rho_inf_range: (f64, f64),
    build: fn(f64) -> Box<dyn TimeIntegrator>,
}

fn rules<T: TimeIntegrator + 'static>() -> Rules {
    Rules { name: T::name(), rho_inf_range: T::rho_inf_range(), build: |rho_inf| Box::new(T::from_rho_inf(rho_inf)) }
}

impl Method {
    /// Appended only: a method's position is its FMU `solver_integrator` code.
    pub const ALL: [Method; 5] = [Method::Ttbif, Method::Hht, Method::GeneralizedAlpha, Method::Newmark, Method::Bathe];

    /// The one place that maps a method to its type.
    fn rules(self) -> Rules {
        match self {
            Method::Ttbif => rules::<TtbifParameters>(),
            Method::Hht => rules::<HhtParameters>(),
            Method::GeneralizedAlpha => rules::<GeneralizedAlphaParameters>(),
            Method::Newmark => rules::<Newmark>(),
            Method::Bathe => rules::<BatheParameters>(),
        }
    }

    pub fn name(self) -> &'static str {
        self.rules().name
    }

    /// The range of rho_inf the method can realise.
    pub fn rho_inf_range(self) -> (f64, f64) {
        self.rules().rho_inf_range
    }

    /// The rho_inf of a model that names this method without a rho_inf: the default
    /// `rho_inf` moved into the method's range (HHT: at least 0.5; Newmark: 1).
    pub fn default_rho_inf(self, rho_inf: f64) -> f64 {
        let (lo, hi) = self.rho_inf_range();
        rho_inf.clamp(lo, hi)
    }

    /// The method's type with its parameters for `rho_inf` (within the range).
    pub(super) fn build(self, rho_inf: f64) -> Box<dyn TimeIntegrator> {
        (self.rules().build)(rho_inf)
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Method {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Method::ALL.into_iter().find(|m| m.name() == s).ok_or_else(|| {
            let names: Vec<_> = Method::ALL.iter().map(|m| m.name()).collect();
            format!("unknown integrator '{s}', expected one of: {}", names.join(", "))
        })
    }
}
