//! Panics the server catches and survives: where they were caught, and what they said.
//!
//! A panic is a bug, but one room's bug must not freeze a seat or take other rooms with it: a
//! CPU search that panics is replaced by a random legal move (`crate::cpu`), and a room's task
//! that panics is rebuilt from storage (`crate::room`). Each is logged and counted.

/// Where a panic was caught (and the server went on).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PanicSite {
    /// A CPU search, or a CPU answer that could not be played: a random legal move was played
    /// instead.
    Cpu,
    /// A room's task: the room was rebuilt from storage, or set aside.
    Room,
}

impl PanicSite {
    /// Every site, in the order of the metric's series.
    pub(crate) const ALL: [PanicSite; 2] = [PanicSite::Cpu, PanicSite::Room];

    /// The site's label value.
    pub(crate) fn name(self) -> &'static str {
        match self {
            PanicSite::Cpu => "cpu",
            PanicSite::Room => "room",
        }
    }
}

/// The message a panic was raised with, when it has one.
pub(crate) fn message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "(no message)".to_owned()
    }
}
