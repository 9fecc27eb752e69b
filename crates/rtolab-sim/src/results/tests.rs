use super::table::{schema, DESCRIPTION_KEY, UNIT_KEY};
use super::{empty_batches, schemas, SeriesMetric};
use arrow_array::cast::AsArray;
use arrow_array::types::UInt32Type;
use arrow_array::Array;

/// A small run with every table filled: flows of every kind, a Gilbert–Elliott link (with
/// FQ-CoDel for its ACKs), a radio network and every series metric.
const SMALL_RUN: &str = r#"
duration = "4s"
[[links]]
name = "radio"
rate = "2Mbps"
delay = "50ms"
loss = { kind = "gilbert-elliott", good = "exp(1s)", bad = "exp(0.2s)", ber_good = 1e-6, ber_bad = 1e-4 }
reverse = { queue = { kind = "fq_codel" } }
[[flows]]
name = "bulk"
route = ["radio"]
[[flows]]
name = "short"
route = ["hsdpa"]
size = "30kB"
[[flows]]
name = "paced"
route = ["radio"]
size = "30kB"
tcp = { stack = "linux", cc = "bbr" }
[[flows]]
name = "quic"
route = ["radio"]
size = "60kB"
quic = { cc = "newreno" }
[[generators]]
kind = "web"
users = 2
size = "20kB"
think = "exp(0.5s)"
route = ["radio"]
[radio]
cells = 1
[output]
series = ["cwnd", "ssthresh", "srtt", "rto", "pacing_rate", "queue", "delay", "channel", "sir", "rate", "sojourn", "rtt", "rttvar"]
events = ["timeout", "spurious", "undo", "retransmit", "drop", "spike", "pto", "lost"]
"#;

fn small_run() -> crate::RunResult {
    let scenario = crate::spec::from_toml(SMALL_RUN).expect("the small run is a valid scenario");
    crate::run(&scenario, Some(3)).expect("the small run runs")
}

#[test]
fn test_every_table_batch_has_its_declared_schema() {
    let mut r = small_run();
    let (flows, links, cells, series, events) = (r.flows.len(), r.links.len(), r.cells.len(), r.series.len(), r.events.len());
    let batches = r.take_batches();
    assert_eq!(batches.each_ref().map(|(name, _)| *name), schemas().map(|(name, _)| name));
    for ((name, batch), (_, columns)) in batches.iter().zip(schemas()) {
        let declared = schema(columns);
        let got = batch.schema();
        assert_eq!(got.fields().len(), declared.fields().len(), "{name}");
        for (g, d) in got.fields().iter().zip(declared.fields()) {
            assert_eq!((g.name(), g.data_type(), g.is_nullable()), (d.name(), d.data_type(), d.is_nullable()), "{name}");
            assert_eq!(g.metadata(), d.metadata(), "{name}.{}", g.name());
        }
        for (column, array) in columns.iter().zip(batch.columns()) {
            assert_eq!(array.data_type(), &column.kind.data_type(), "{name}.{}", column.name);
            assert!(column.nullable || array.null_count() == 0, "{name}.{} has nulls", column.name);
        }
    }
    let rows = batches.each_ref().map(|(_, b)| b.num_rows());
    assert_eq!(rows, [flows, links, cells, series, events]);
    assert!(rows.iter().all(|&n| n > 0), "the small run fills every table: {rows:?}");
}

#[test]
fn test_empty_batches_have_the_declared_schemas() {
    for ((name, batch), (table, columns)) in empty_batches().into_iter().zip(schemas()) {
        assert_eq!(name, table);
        assert_eq!(batch.num_rows(), 0);
        assert_eq!(batch.schema().as_ref(), &schema(columns), "{name}");
    }
}

#[test]
fn test_every_column_has_a_description_and_unit_metadata() {
    for (name, columns) in schemas() {
        for c in columns {
            assert!(!c.description().is_empty(), "{name}.{} has no description", c.name);
            let field = c.field();
            assert_eq!(field.metadata().get(UNIT_KEY).map(String::as_str), Some(c.unit));
            assert_eq!(field.metadata().get(DESCRIPTION_KEY), Some(&c.description()));
        }
    }
}

#[test]
fn test_optional_fields_are_nulls_not_sentinels() {
    let mut r = small_run();
    let unfinished = r.flows.iter().position(|f| f.end_s.is_none()).expect("the bulk flow never ends");
    let [(_, flows), ..] = r.take_batches();
    let end_s = flows.column_by_name("end_s").expect("flows has end_s");
    assert!(end_s.is_null(unfinished));
    assert_eq!(end_s.null_count(), r.flows.iter().filter(|f| f.end_s.is_none()).count());
}

#[test]
fn test_series_categories_are_every_entity_and_every_metric() {
    let mut r = small_run();
    let entities = r.series.entities.clone();
    let metrics = r.series.metric.clone();
    let [.., (_, series), _] = r.take_batches();
    let entity = series.column_by_name("entity").expect("series has entity").as_dictionary::<UInt32Type>();
    let values: Vec<&str> = entity.values().as_string::<i32>().iter().flatten().collect();
    assert_eq!(values, entities);
    let metric = series.column_by_name("metric").expect("series has metric").as_dictionary::<UInt32Type>();
    let names: Vec<&str> = metric.values().as_string::<i32>().iter().flatten().collect();
    assert_eq!(names, SeriesMetric::ALL.map(SeriesMetric::name));
    let keys: Vec<SeriesMetric> = metric.keys().values().iter().map(|&k| SeriesMetric::ALL[k as usize]).collect();
    assert_eq!(keys, metrics);
    for m in SeriesMetric::ALL {
        assert!(metrics.contains(&m), "the small run records {}", m.name());
    }
}

/// The `rtt` series holds every sample the flows table counts: per flow, `rtt_samples`
/// values whose mean is `mean_rtt_s` (both come from the same samples, so they must agree to
/// rounding).
#[test]
fn test_rtt_series_holds_every_sample_the_flows_table_counts() {
    let r = small_run();
    let mut sampled = 0;
    for (i, f) in r.flows.iter().enumerate() {
        let values: Vec<f64> = (0..r.series.value.len())
            .filter(|&k| r.series.metric[k] == SeriesMetric::Rtt && r.series.entity[k] as usize == i)
            .map(|k| r.series.value[k])
            .collect();
        assert_eq!(r.series.entities[i], f.name, "flows come first among the entities");
        // QUIC flows take no TCP RTT samples (null), and record none.
        assert_eq!(values.len() as u64, f.rtt_samples.unwrap_or(0), "{}: one series value per sample", f.name);
        if let Some(mean) = f.mean_rtt_s {
            let series_mean = values.iter().sum::<f64>() / values.len() as f64;
            assert!((series_mean - mean).abs() <= 1e-12 * mean.max(1.0), "{}: {series_mean} against {mean}", f.name);
            sampled += 1;
        }
    }
    assert!(sampled >= 3, "the small run's flows take RTT samples");
}
