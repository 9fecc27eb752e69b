//! The sender configurations flows share: flows whose resolved configurations are equal get
//! one shared copy (`SharedSenderConfig`), so thousands of flows of one kind keep a single
//! configuration in cache rather than one per flow.

use crate::tcp::{SenderConfig, SharedSenderConfig};

/// Distinct configurations remembered. A flow whose configuration is not among the most
/// recent ones gets a copy of its own (web flows of distinct sizes, ns-2 clocks of distinct
/// phases), so creating a flow stays a few comparisons.
const REMEMBERED: usize = 8;

#[derive(Debug, Default)]
pub struct SenderConfigs {
    /// Oldest first.
    recent: Vec<SharedSenderConfig>,
}

impl SenderConfigs {
    /// `cfg` shared with an earlier flow's equal configuration, if one is remembered.
    pub fn share(&mut self, cfg: SenderConfig) -> SharedSenderConfig {
        if let Some(s) = self.recent.iter().rev().find(|s| *s.config() == cfg) {
            return s.clone();
        }
        let shared = SharedSenderConfig::from(cfg);
        if self.recent.len() == REMEMBERED {
            self.recent.remove(0);
        }
        self.recent.push(shared.clone());
        shared
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::TcpSpec;

    #[test]
    fn equal_configurations_share_one_copy() {
        let mut configs = SenderConfigs::default();
        let spec = TcpSpec::default();
        let a = configs.share(spec.resolve(None).sender);
        let b = configs.share(spec.resolve(None).sender);
        let c = configs.share(spec.resolve(Some(1000)).sender);
        assert!(std::ptr::eq(a.config(), b.config()));
        assert!(!std::ptr::eq(a.config(), c.config()));
        assert_eq!(c.config().size, Some(1000));
    }
}
