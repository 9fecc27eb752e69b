//! One definition per result table: `result_table!` declares a row struct and, from the same
//! field list, its columns (name, Arrow type, nullability, unit, description) and its Arrow
//! record batch. Nothing else lists a table's fields.

use arrow_array::{ArrayRef, BooleanArray, Float64Array, RecordBatch, StringArray, UInt32Array, UInt64Array};
use arrow_schema::{DataType, Field, Schema};
use std::collections::HashMap;
use std::sync::Arc;

/// Field metadata key of a column's unit.
pub const UNIT_KEY: &str = "unit";
/// Field metadata key of a column's description.
pub const DESCRIPTION_KEY: &str = "description";

/// The Arrow type of a column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    UInt32,
    UInt64,
    Float64,
    Utf8,
    Boolean,
    /// A label from a fixed list: UInt32 keys into a dictionary of the list's strings.
    Category,
}

impl Kind {
    pub fn data_type(self) -> DataType {
        match self {
            Kind::UInt32 => DataType::UInt32,
            Kind::UInt64 => DataType::UInt64,
            Kind::Float64 => DataType::Float64,
            Kind::Utf8 => DataType::Utf8,
            Kind::Boolean => DataType::Boolean,
            Kind::Category => DataType::Dictionary(Box::new(DataType::UInt32), Box::new(DataType::Utf8)),
        }
    }
}

/// A column of a result table, declared once beside its field.
#[derive(Clone, Copy, Debug)]
pub struct Column {
    pub name: &'static str,
    pub kind: Kind,
    /// Whether the column holds nulls (an `Option` field).
    pub nullable: bool,
    /// "s", "bit/s", "bytes", "packets", "count", "fraction", …; empty for names and labels.
    pub unit: &'static str,
    /// The field's doc comment, its lines concatenated.
    pub doc: &'static str,
}

impl Column {
    /// The doc comment as one line.
    pub fn description(&self) -> String {
        self.doc.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// The Arrow field: name, type and nullability, with the unit and the description as
    /// metadata (`UNIT_KEY`, `DESCRIPTION_KEY`).
    pub fn field(&self) -> Field {
        let metadata = HashMap::from([(UNIT_KEY.to_string(), self.unit.to_string()), (DESCRIPTION_KEY.to_string(), self.description())]);
        Field::new(self.name, self.kind.data_type(), self.nullable).with_metadata(metadata)
    }
}

/// The Arrow schema of a table with these columns.
pub fn schema(columns: &[Column]) -> Schema {
    Schema::new(columns.iter().map(Column::field).collect::<Vec<_>>())
}

/// A record batch of `columns` from their arrays, in the same order.
///
/// Panics if an array does not match its column; the table definitions make them match, and
/// a test checks every table.
pub fn batch(columns: &[Column], arrays: Vec<ArrayRef>) -> RecordBatch {
    RecordBatch::try_new(Arc::new(schema(columns)), arrays).expect("a table's arrays match its declared columns")
}

/// A field type that can be a column: its Arrow type, whether it is optional, and how a
/// column of its values becomes an Arrow array.
pub trait Value: Sized {
    const KIND: Kind;
    const NULLABLE: bool = false;
    fn array<'a>(values: impl Iterator<Item = &'a Self>) -> ArrayRef
    where
        Self: 'a;
}

macro_rules! value {
    ($ty:ty, $kind:ident, $array:ty) => {
        impl Value for $ty {
            const KIND: Kind = Kind::$kind;
            fn array<'a>(values: impl Iterator<Item = &'a Self>) -> ArrayRef {
                Arc::new(<$array>::from_iter_values(values.copied()))
            }
        }
        impl Value for Option<$ty> {
            const KIND: Kind = Kind::$kind;
            const NULLABLE: bool = true;
            fn array<'a>(values: impl Iterator<Item = &'a Self>) -> ArrayRef {
                Arc::new(values.copied().collect::<$array>())
            }
        }
    };
}
value!(u32, UInt32, UInt32Array);
value!(u64, UInt64, UInt64Array);
value!(f64, Float64, Float64Array);

impl Value for Option<bool> {
    const KIND: Kind = Kind::Boolean;
    const NULLABLE: bool = true;
    fn array<'a>(values: impl Iterator<Item = &'a Self>) -> ArrayRef {
        Arc::new(values.copied().collect::<BooleanArray>())
    }
}

impl Value for String {
    const KIND: Kind = Kind::Utf8;
    fn array<'a>(values: impl Iterator<Item = &'a Self>) -> ArrayRef {
        Arc::new(StringArray::from_iter_values(values))
    }
}

impl Value for Option<String> {
    const KIND: Kind = Kind::Utf8;
    const NULLABLE: bool = true;
    fn array<'a>(values: impl Iterator<Item = &'a Self>) -> ArrayRef {
        Arc::new(values.map(Option::as_deref).collect::<StringArray>())
    }
}

/// A row of a table declared with `result_table!`.
pub trait Row: Sized {
    /// The table's name: "flows", "links", …
    const TABLE: &'static str;
    /// The columns, in field order.
    const COLUMNS: &'static [Column];
    /// One array per column, in field order.
    fn arrays(rows: &[Self]) -> Vec<ArrayRef>;

    /// The rows as an Arrow record batch with the schema of `COLUMNS`.
    fn batch(rows: &[Self]) -> RecordBatch {
        batch(Self::COLUMNS, Self::arrays(rows))
    }
}

/// Declares a result table: a row struct written as usual, named by `in "table"`, whose every
/// field carries its doc comment (the column's description) and then `#[unit = "…"]`
/// (empty for names and labels). The field's type gives the Arrow type (`Value`); an
/// `Option` field is a nullable column. Produces the struct and its `Row` implementation.
macro_rules! result_table {
    (
        $(#[$meta:meta])*
        $vis:vis struct $row:ident in $table:literal {
            $(
                $(#[doc = $doc:literal])*
                #[unit = $unit:literal]
                $fvis:vis $field:ident : $ty:ty
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis struct $row {
            $(
                $(#[doc = $doc])*
                $fvis $field: $ty,
            )*
        }

        impl $crate::results::table::Row for $row {
            const TABLE: &'static str = $table;
            const COLUMNS: &'static [$crate::results::table::Column] = &[$(
                $crate::results::table::Column {
                    name: stringify!($field),
                    kind: <$ty as $crate::results::table::Value>::KIND,
                    nullable: <$ty as $crate::results::table::Value>::NULLABLE,
                    unit: $unit,
                    doc: concat!($($doc),*),
                },
            )*];
            fn arrays(rows: &[Self]) -> Vec<arrow_array::ArrayRef> {
                vec![$(<$ty as $crate::results::table::Value>::array(rows.iter().map(|r| &r.$field))),*]
            }
        }
    };
    ($($anything:tt)*) => {
        compile_error!("result_table!: write `pub struct Row in \"table\" { … }` and give every field its doc comment, then `#[unit = \"…\"]`");
    };
}
pub(crate) use result_table;
