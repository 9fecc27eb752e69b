//! The crate's layers, lowest first. A module may use (`crate::…`) only modules below it in
//! `ORDER`; the test below reads every source file and holds the crate to it, so no arrow runs
//! up and no two modules import each other.
//!
//! - `time`, `units`, `rng`, `intervals`, `prefetch`, `control`, `ids`: values and helpers.
//! - `engine`: the event queue. `results`: the tables a run returns (rows, series).
//! - `tcp` (endpoints; the messages the network carries to them: `Segment`, `IcmpSignal`),
//!   `transport` (the sans-IO interface every transport's endpoints answer to, TCP's
//!   included, and UDP's ends), `quic` (quinn-proto's QUIC on simulated time: its two ends
//!   and their oracle), `voice` (codecs and the E-model that scores a call),
//!   `traffic` (the generators as parts: each kind's table and its plan),
//!   `net` (links, queues, ARQ, spikes: they carry TCP's packets), `radio` (the HSDPA
//!   network: it uses `net`'s hops), `pcap` (captures of `net`'s packets). Each component
//!   owns the types of its settings (`net::QueueSpec`, `radio::RadioSpec`, `tcp::cc::CcKind`,
//!   `tcp::rto::RtoPreset`, …).
//! - `spec`: the scenario, as users write it; it names the components' settings.
//! - `build`: a scenario's network parts, for the simulator and the emulator.
//! - `fabric`: the network of a run (links, spikes, radio network, routes, packet store and
//!   their events), driven by the simulator and the emulator, calling back to their hosts.
//! - `world`: the simulation. `bench`: the benchmark scenarios. `drill`: one socket of a
//!   stack driven packet by packet (`rtolab drill`).

/// Every top-level module of the crate, lowest layer first.
pub const ORDER: [&str; 23] = [
    "time", "units", "rng", "intervals", "prefetch", "control", "ids", "engine", "results", "tcp", "transport", "quic", "voice", "traffic", "net", "radio", "pcap", "spec", "build", "fabric", "world", "bench", "drill",
];

#[cfg(test)]
mod tests {
    use super::ORDER;
    use std::collections::BTreeSet;
    use std::path::{Path, PathBuf};

    fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    /// The code of a source file that ships: without test-only files, without the test
    /// module at its end, and without comments.
    fn shipped_code(path: &Path) -> Option<String> {
        let name = path.file_name()?.to_str()?;
        if name == "tests.rs" || name.ends_with("_tests.rs") || name == "test_acks.rs" {
            return None;
        }
        let text = std::fs::read_to_string(path).ok()?;
        let shipped = text.split("#[cfg(test)]").next().unwrap_or("");
        Some(shipped.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n"))
    }

    /// The top-level modules `code` names through `crate::`.
    fn uses(code: &str) -> BTreeSet<String> {
        code.match_indices("crate::")
            .map(|(i, _)| code[i + 7..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>())
            .filter(|m| !m.is_empty())
            .collect()
    }

    fn layer(module: &str) -> Option<usize> {
        ORDER.iter().position(|m| *m == module)
    }

    #[test]
    fn no_module_uses_one_above_it() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        sources(&src, &mut files);
        let mut upward = Vec::new();
        for path in files {
            let relative = path.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
            let top = relative.split('/').next().unwrap().trim_end_matches(".rs").to_string();
            if top == "lib" || top == "layers" {
                continue;
            }
            let own = layer(&top).unwrap_or_else(|| panic!("{relative}: module `{top}` is not in layers::ORDER"));
            let Some(code) = shipped_code(&path) else { continue };
            for used in uses(&code) {
                if used == top {
                    continue;
                }
                let theirs = layer(&used).unwrap_or_else(|| panic!("{relative} uses crate::{used}, which is not in layers::ORDER"));
                if theirs > own {
                    upward.push((relative.clone(), used));
                }
            }
        }
        upward.sort();
        assert_eq!(upward, Vec::<(String, String)>::new(), "imports from a lower layer to a higher one (file, module used); see layers::ORDER");
    }

    #[test]
    fn every_top_level_module_has_a_layer() {
        let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
        let declared: BTreeSet<&str> = lib.lines().filter_map(|l| l.strip_prefix("pub mod ")).map(|m| m.trim_end_matches(';')).filter(|m| *m != "layers").collect();
        let ordered: BTreeSet<&str> = ORDER.iter().copied().collect();
        assert_eq!(declared, ordered);
    }
}
