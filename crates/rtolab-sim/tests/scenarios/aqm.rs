//! CoDel, PIE and FQ-CoDel in whole runs: four bulk flows through a 4 Mbit/s bottleneck
//! with a 1000-packet limit. Each run checks its own byte-stream and conservation
//! invariants; here: the active queue management is what drops (the limit is never
//! reached), the standing queue is far shorter than DropTail's with the same limit, the
//! drops are reported in the `links` table and as events, and a run is bit-identical to
//! its repetition.

use rtolab_sim::spec::from_toml;

fn scenario(queue: &str) -> String {
    format!(
        r#"
duration = "30s"
[[links]]
name = "bottleneck"
rate = "4Mbps"
delay = "25ms"
queue = {queue}
{flows}
[output]
series = ["sojourn"]
events = ["drop"]
"#,
        flows = (0..4).map(|i| format!("[[flows]]\nname = \"bulk{i}\"\nroute = [\"bottleneck\"]\nsize = \"inf\"\nstart = \"{}ms\"\ntcp = {{ stack = \"linux\" }}\n", 100 * i)).collect::<String>()
    )
}

fn run(queue: &str) -> rtolab_sim::RunResult {
    rtolab_sim::run(&from_toml(&scenario(queue)).expect("a valid scenario"), Some(11)).expect("the run runs")
}

#[test]
fn test_aqm_drops_instead_of_the_limit() {
    let droptail = run(r#"{ kind = "droptail", limit = "1000p" }"#);
    let tail_queue = droptail.links[0].mean_queue;
    for queue in [r#"{ kind = "codel" }"#, r#"{ kind = "pie" }"#, r#"{ kind = "fq_codel" }"#] {
        let r = run(queue);
        let fwd = &r.links[0];
        assert!(fwd.aqm_drops > 0, "{queue}: no AQM drop");
        assert_eq!((fwd.queue_drops, fwd.red_drops), (0, 0), "{queue}");
        assert_eq!(fwd.drops, fwd.aqm_drops, "{queue}");
        // DropTail with 1000 packets of room holds hundreds; a delay target of 5 or 15 ms
        // at 4 Mbit/s is 2 or 5 packets. A tenth of DropTail's is far above either.
        assert!(fwd.mean_queue < tail_queue / 10.0, "{queue}: mean queue {} against DropTail's {tail_queue}", fwd.mean_queue);
        assert!(fwd.utilisation > 0.9, "{queue}: utilisation {}", fwd.utilisation);
        let drop_events = r.events.iter().filter(|e| e.link.as_deref() == Some("bottleneck.forward") && e.detail.as_deref() == Some("queue")).count() as u64;
        assert_eq!(drop_events, fwd.drops, "{queue}: every drop is an event");
        assert!(r.series.len() > 1000, "{queue}: sojourn times recorded");
    }
}

#[test]
fn test_aqm_runs_are_bit_identical() {
    for queue in [r#"{ kind = "codel" }"#, r#"{ kind = "pie" }"#, r#"{ kind = "fq_codel", flows = 2 }"#] {
        let (a, b) = (run(queue), run(queue));
        assert_eq!(format!("{:?}", a.links), format!("{:?}", b.links), "{queue}");
        assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows), "{queue}");
        assert_eq!(a.series.value.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), b.series.value.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), "{queue}");
    }
}
