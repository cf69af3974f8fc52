//! Result sets as text tables.

use comfy_table::{ContentArrangement, Table, presets::UTF8_FULL_CONDENSED};
use graphlancer_model::ResultSet;

/// Renders rows as a table followed by the row count.
pub(crate) fn render(rs: &ResultSet) -> String {
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Dynamic);
    table.set_header(&rs.columns);
    for row in &rs.rows {
        table.add_row(row.iter().map(ToString::to_string));
    }
    let n = rs.rows.len();
    format!("{table}\n{n} row{}", if n == 1 { "" } else { "s" })
}
