//! Result tables to Python: each table an Arrow record batch, handed over through the Arrow
//! PyCapsule interface (`__arrow_c_array__`, `arrow_capsules`), from which polars builds a
//! DataFrame without copying the numeric columns. The schemas come from `rtolab_sim::results`,
//! nothing here names a column.

use arrow_array::cast::AsArray;
use arrow_array::RecordBatch;
use arrow_schema::{Field, Schema};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use crate::arrow_capsules::ArrowBatch;
use rtolab_sim::results::{empty_batches, schemas, SeriesMetric};
use rtolab_sim::{RunMeta, RunResult};
use std::sync::Arc;

/// Field metadata from which polars reads a dictionary column as an `Enum` whose categories
/// are the dictionary's values in order (each written `<byte length>;<text>`); without it
/// polars makes a `Categorical`, whose order is not the dictionary's. Polars reads this key,
/// and its newer `_PL_ENUM_VALUES2` of the same encoding, since 1.0.
const POLARS_ENUM_KEY: &str = "_PL_ENUM_VALUES";

/// `batch` with each dictionary column marked as a polars `Enum` of its dictionary's values.
fn with_polars_enums(batch: RecordBatch) -> RecordBatch {
    let schema = batch.schema();
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .zip(batch.columns())
        .map(|(field, column)| match column.as_any_dictionary_opt() {
            Some(dictionary) => {
                let categories: String = dictionary.values().as_string::<i32>().iter().flatten().map(|v| format!("{};{v}", v.len())).collect();
                let mut metadata = field.metadata().clone();
                metadata.insert(POLARS_ENUM_KEY.to_string(), categories);
                field.as_ref().clone().with_metadata(metadata)
            }
            None => field.as_ref().clone(),
        })
        .collect();
    let schema = Schema::new_with_metadata(fields, schema.metadata().clone());
    RecordBatch::try_new(Arc::new(schema), batch.columns().to_vec()).expect("only metadata changed")
}

fn batch_to_py<'py>(py: Python<'py>, batch: RecordBatch) -> PyResult<Bound<'py, PyAny>> {
    Ok(Bound::new(py, ArrowBatch::new(with_polars_enums(batch)))?.into_any())
}

pub(crate) fn meta_to_py<'py>(py: Python<'py>, m: &RunMeta) -> PyResult<Bound<'py, PyDict>> {
    let meta = PyDict::new(py);
    meta.set_item("scenario", &m.scenario)?;
    meta.set_item("seed", m.seed)?;
    meta.set_item("sim_time_s", m.sim_time_s)?;
    meta.set_item("events", m.events)?;
    meta.set_item("data_packets", m.data_packets)?;
    meta.set_item("peak_live_packets", m.peak_live_packets)?;
    Ok(meta)
}

/// A run's result as a dict: each table name → its record batch, `meta` → dict, `pcaps` →
/// link direction → pcap file bytes.
pub(crate) fn result_to_py(py: Python<'_>, mut r: RunResult) -> PyResult<Bound<'_, PyDict>> {
    let (batches, r) = py.detach(move || (r.take_batches(), r));
    let out = PyDict::new(py);
    for (name, batch) in batches {
        out.set_item(name, batch_to_py(py, batch)?)?;
    }
    out.set_item("meta", meta_to_py(py, &r.meta)?)?;
    let pcaps = PyDict::new(py);
    for (name, bytes) in &r.pcaps {
        pcaps.set_item(name, PyBytes::new(py, bytes))?;
    }
    out.set_item("pcaps", pcaps)?;
    Ok(out)
}

/// A column as (name, Arrow type, nullable, unit, description).
type DescribedColumn = (&'static str, String, bool, &'static str, String);

/// Each result table as (name, an empty record batch of its schema, its described columns),
/// in the order a run returns them.
#[pyfunction]
pub(crate) fn result_schemas(py: Python<'_>) -> PyResult<Vec<(&'static str, Bound<'_, PyAny>, Vec<DescribedColumn>)>> {
    schemas()
        .into_iter()
        .zip(empty_batches())
        .map(|((name, columns), (_, empty))| {
            let described = columns.iter().map(|c| (c.name, c.kind.data_type().to_string(), c.nullable, c.unit, c.description())).collect();
            Ok((name, batch_to_py(py, empty)?, described))
        })
        .collect()
}

/// The series metrics as (name, unit of `value`, description), in category order.
#[pyfunction]
pub(crate) fn series_metrics() -> Vec<(&'static str, &'static str, &'static str)> {
    SeriesMetric::ALL.map(|m| (m.name(), m.unit(), m.description())).to_vec()
}
