//! A record batch handed to Python through the Arrow PyCapsule interface
//! (<https://arrow.apache.org/docs/format/CDataInterface/PyCapsuleInterface.html>): an object
//! whose `__arrow_c_array__` returns the C data interface's `ArrowSchema` and `ArrowArray` in
//! capsules named `arrow_schema` and `arrow_array`, the batch as one struct array whose children
//! are its columns. The structs themselves come from arrow's own `ffi` modules.
//!
//! Invariant (the interface's ownership rule): each capsule owns its struct until a consumer
//! moves it out, which leaves its `release` null; dropping the capsule's value calls `release`
//! only when it is still set (`FFI_ArrowSchema`'s and `FFI_ArrowArray`'s `Drop`), so the buffers
//! are freed exactly once, by whoever holds them last.

use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::{Array, RecordBatch, StructArray};
use arrow_schema::{DataType, Field};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use std::ffi::CString;

/// One result table, immutable, readable by any PyCapsule consumer (polars, pyarrow, duckdb).
#[pyclass(frozen, module = "rtolab._core", name = "ArrowBatch")]
pub(crate) struct ArrowBatch {
    batch: RecordBatch,
}

impl ArrowBatch {
    pub(crate) fn new(batch: RecordBatch) -> Self {
        ArrowBatch { batch }
    }

    /// The batch's type as the interface describes a batch: a non-null struct of its columns,
    /// carrying the schema's metadata.
    fn struct_field(&self) -> Field {
        let schema = self.batch.schema();
        Field::new("", DataType::Struct(schema.fields().clone()), false).with_metadata(schema.metadata().clone())
    }
}

fn schema_capsule<'py>(py: Python<'py>, field: &Field) -> PyResult<Bound<'py, PyCapsule>> {
    let schema = FFI_ArrowSchema::try_from(field).map_err(|e| PyValueError::new_err(format!("table schema not exportable to Arrow: {e}")))?;
    PyCapsule::new(py, schema, Some(CString::from(c"arrow_schema")))
}

#[pymethods]
impl ArrowBatch {
    /// The interface's schema capsule: the batch's struct type.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        schema_capsule(py, &self.struct_field())
    }

    /// The interface's (schema, array) capsules. A `requested_schema` is a request the
    /// producer may decline (the interface's words); the tables are returned in their own
    /// types, which are those `rtolab._core.result_schemas()` publishes.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_array__<'py>(&self, py: Python<'py>, requested_schema: Option<Bound<'py, PyAny>>) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        let _ = requested_schema;
        let schema = schema_capsule(py, &self.struct_field())?;
        let array = FFI_ArrowArray::new(&StructArray::from(self.batch.clone()).to_data());
        Ok((schema, PyCapsule::new(py, array, Some(CString::from(c"arrow_array")))?))
    }

    fn __len__(&self) -> usize {
        self.batch.num_rows()
    }

    fn __repr__(&self) -> String {
        format!("ArrowBatch({} rows × {} columns)", self.batch.num_rows(), self.batch.num_columns())
    }
}
