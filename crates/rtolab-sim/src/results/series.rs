//! The long-format `series` table: one row per recorded change, kept as columns while the run
//! records them.

use super::table::{batch, Column, Kind};
use super::SeriesMetric;
use arrow_array::{ArrayRef, DictionaryArray, Float64Array, RecordBatch, StringArray, UInt32Array};
use serde::Serialize;
use std::sync::Arc;

/// The long-format time series: one row per recorded change.
///
/// Invariant: the four columns have equal lengths and every `entity` indexes `entities`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SeriesTable {
    pub time_s: Vec<f64>,
    /// Index into `entities`.
    pub entity: Vec<u32>,
    pub metric: Vec<SeriesMetric>,
    pub value: Vec<f64>,
    /// Flow names (the flows table's, in its order), then link directions ("radio.forward"),
    /// then the radio network's mobile users ("hsdpa.ue0") when a per-user series was asked
    /// for.
    pub entities: Vec<String>,
}

impl SeriesTable {
    pub const TABLE: &'static str = "series";
    /// The columns of `batch`, in order.
    pub const COLUMNS: &'static [Column] = &[
        Column { name: "time_s", kind: Kind::Float64, nullable: false, unit: "s", doc: "When the value changed (or the packet arrived, for delay)." },
        Column {
            name: "entity",
            kind: Kind::Category,
            nullable: false,
            unit: "",
            doc: "The flow, link direction (\"radio.forward\") or mobile user (\"hsdpa.ue0\"); categories: flows (in the flows table's order), then link directions, then mobile users. A connection shared by a per-session web user's files records under its latest file.",
        },
        Column { name: "metric", kind: Kind::Category, nullable: false, unit: "", doc: "What was recorded; categories: every series metric, in order." },
        Column { name: "value", kind: Kind::Float64, nullable: false, unit: "per metric", doc: "The new value, in the metric's unit." },
    ];

    pub fn push(&mut self, time_s: f64, entity: u32, metric: SeriesMetric, value: f64) {
        self.time_s.push(time_s);
        self.entity.push(entity);
        self.metric.push(metric);
        self.value.push(value);
    }
    pub fn len(&self) -> usize {
        self.time_s.len()
    }
    pub fn is_empty(&self) -> bool {
        self.time_s.is_empty()
    }

    /// The table as an Arrow record batch: `entity` and `metric` as dictionaries of every
    /// entity and of every `SeriesMetric` name (categories in those orders, used or not).
    /// The time and value columns move into their arrays without a copy.
    pub fn into_batch(self) -> RecordBatch {
        let entities: ArrayRef = Arc::new(StringArray::from_iter_values(&self.entities));
        let metrics: ArrayRef = Arc::new(StringArray::from_iter_values(SeriesMetric::ALL.map(SeriesMetric::name)));
        let metric_keys: UInt32Array = self.metric.iter().map(|&m| m as u32).collect();
        let dictionary =
            |keys: UInt32Array, values: ArrayRef| -> ArrayRef { Arc::new(DictionaryArray::try_new(keys, values).expect("series keys index their dictionary")) };
        batch(
            Self::COLUMNS,
            vec![
                Arc::new(Float64Array::from(self.time_s)),
                dictionary(UInt32Array::from(self.entity), entities),
                dictionary(metric_keys, metrics),
                Arc::new(Float64Array::from(self.value)),
            ],
        )
    }
}
