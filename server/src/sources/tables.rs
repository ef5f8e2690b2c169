//! Plain tables read the same way from SQL Server (TDS), PostgreSQL, MySQL/MariaDB and SQLite:
//! the seeds' schedulers keep their state in ordinary tables, and the same layout can live in
//! any of them.
//!
//! Every column comes back as text (or NULL), converted in SQL by the dialect's own rule, so
//! one mapping serves every database and a bad value becomes a diagnostic naming its column.
//! Times are written `YYYY-MM-DD HH:MM:SS[.fff]`. Connections are read-only (PostgreSQL
//! `default_transaction_read_only`, SQLite `mode=ro`, SQL Server `ApplicationIntent=ReadOnly`,
//! MySQL `SET SESSION TRANSACTION READ ONLY`).
use std::collections::BTreeMap;

use super::SourceError;
use super::msdb::MsdbClient;

/// One row: column name → text (None: NULL).
pub type TextRow = BTreeMap<String, Option<String>>;

/// Where the tables are. (One per instance, made once: the TDS client's size does not matter.)
#[allow(clippy::large_enum_variant)]
pub enum TablesDb {
    SqlServer(MsdbClient),
    Postgres(sqlx::PgPool),
    Sqlite(sqlx::SqlitePool),
    MySql(sqlx::MySqlPool),
}

/// What a column holds, for the conversion to text.
#[derive(Clone, Copy)]
pub enum Col {
    /// Numbers, bits, strings.
    Plain(&'static str),
    /// datetime / datetime2 / timestamp.
    Time(&'static str),
}

impl Col {
    /// The column's name.
    pub fn name(self) -> &'static str {
        match self {
            Col::Plain(n) | Col::Time(n) => n,
        }
    }
}

/// sqlx rows whose columns are all text (or NULL), named `names` in order.
fn text_rows<R: sqlx::Row>(rows: &[R], names: &[&str]) -> Vec<TextRow>
where
    usize: sqlx::ColumnIndex<R>,
    for<'r> Option<String>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    rows.iter()
        .map(|r| {
            names
                .iter()
                .enumerate()
                .map(|(i, n)| (n.to_string(), r.try_get::<Option<String>, _>(i).ok().flatten()))
                .collect()
        })
        .collect()
}

fn expr(db: &TablesDb, col: Col) -> String {
    match (db, col) {
        (TablesDb::SqlServer(_), Col::Plain(c)) => format!("CONVERT(nvarchar(4000), {c}) AS {c}"),
        (TablesDb::SqlServer(_), Col::Time(c)) => format!("REPLACE(CONVERT(nvarchar(23), {c}, 126), 'T', ' ') AS {c}"),
        (TablesDb::Postgres(_), Col::Plain(c)) => format!("CAST(\"{c}\" AS text) AS \"{c}\""),
        (TablesDb::Postgres(_), Col::Time(c)) => format!("to_char(\"{c}\", 'YYYY-MM-DD HH24:MI:SS.MS') AS \"{c}\""),
        (TablesDb::Sqlite(_), Col::Plain(c) | Col::Time(c)) => format!("CAST(\"{c}\" AS TEXT) AS \"{c}\""),
        (TablesDb::MySql(_), Col::Plain(c)) => format!("CAST(`{c}` AS CHAR) AS `{c}`"),
        (TablesDb::MySql(_), Col::Time(c)) => format!("DATE_FORMAT(`{c}`, '%Y-%m-%d %H:%i:%s') AS `{c}`"),
    }
}

fn ident(db: &TablesDb, table: &str) -> String {
    match db {
        TablesDb::SqlServer(_) => format!("dbo.{table}"),
        TablesDb::MySql(_) => format!("`{table}`"),
        _ => format!("\"{table}\""),
    }
}

/// The SELECT [`read`] sends: the columns as text, then `tail` (a WHERE/ORDER BY built by the
/// caller from numbers and dates Sundial formats itself, never from outside text).
pub fn select_sql(db: &TablesDb, table: &str, cols: &[Col], tail: &str) -> String {
    let list: Vec<String> = cols.iter().map(|c| expr(db, *c)).collect();
    format!("SELECT {} FROM {} {tail}", list.join(", "), ident(db, table)).trim_end().to_owned()
}

/// A quoted column name in `db`'s dialect, for the caller's `tail`.
pub fn column(db: &TablesDb, name: &str) -> String {
    match db {
        TablesDb::SqlServer(_) => name.to_owned(),
        TablesDb::MySql(_) => format!("`{name}`"),
        _ => format!("\"{name}\""),
    }
}

/// A timestamp literal in `db`'s dialect.
pub fn time_literal(db: &TablesDb, t: chrono::NaiveDateTime) -> String {
    let s = t.format("%Y-%m-%d %H:%M:%S");
    match db {
        TablesDb::SqlServer(_) => format!("CONVERT(datetime2, '{s}', 120)"),
        TablesDb::Postgres(_) => format!("TIMESTAMP '{s}'"),
        TablesDb::Sqlite(_) | TablesDb::MySql(_) => format!("'{s}'"),
    }
}

fn classify(table: &str, code: Option<&str>, number: Option<u32>, message: String) -> SourceError {
    let missing = || SourceError::Missing { object: format!("table {table}"), hint: String::new() };
    match (code, number) {
        (Some("42501"), _) | (_, Some(229 | 1142 | 1044)) => SourceError::permission(table, "SELECT on it"),
        (Some("42P01"), _) | (_, Some(208 | 1146)) => missing(),
        _ if message.contains("no such table") => missing(),
        _ => SourceError::query(table, message),
    }
}

/// Every row of `SELECT cols FROM table tail`, as text.
pub async fn read(db: &mut TablesDb, table: &str, cols: &[Col], tail: &str) -> Result<Vec<TextRow>, SourceError> {
    // Audited: built from Sundial's constant table and column names and from dates Sundial
    // formats itself (see `select_sql`); no text from outside enters it.
    let sql = select_sql(db, table, cols, tail);
    let names: Vec<&str> = cols.iter().map(|c| c.name()).collect();
    let sqlx_err = |e: sqlx::Error| match &e {
        sqlx::Error::Database(d) => {
            let number = d.try_downcast_ref::<sqlx::mysql::MySqlDatabaseError>().map(|m| u32::from(m.number()));
            classify(table, d.code().as_deref(), number, d.message().to_owned())
        }
        _ => SourceError::query(table, "the connection failed"),
    };
    match db {
        TablesDb::Postgres(pool) => {
            let rows = sqlx::query(sqlx::AssertSqlSafe(sql.clone())).fetch_all(&*pool).await.map_err(sqlx_err)?;
            Ok(text_rows(&rows, &names))
        }
        TablesDb::Sqlite(pool) => {
            let rows = sqlx::query(sqlx::AssertSqlSafe(sql.clone())).fetch_all(&*pool).await.map_err(sqlx_err)?;
            Ok(text_rows(&rows, &names))
        }
        TablesDb::MySql(pool) => {
            let rows = sqlx::query(sqlx::AssertSqlSafe(sql.clone())).fetch_all(&*pool).await.map_err(sqlx_err)?;
            Ok(text_rows(&rows, &names))
        }
        TablesDb::SqlServer(client) => {
            let tds_err = |e: tiberius::error::Error| match e {
                tiberius::error::Error::Server(t) => {
                    classify(table, None, Some(t.code()), format!("error {}: {}", t.code(), t.message()))
                }
                _ => SourceError::query(table, "the connection failed"),
            };
            let stream = client.simple_query(&sql).await.map_err(tds_err)?;
            let rows = stream.into_first_result().await.map_err(tds_err)?;
            Ok(rows
                .iter()
                .map(|r| {
                    names
                        .iter()
                        .enumerate()
                        .map(|(i, n)| (n.to_string(), r.try_get::<&str, _>(i).ok().flatten().map(str::to_owned)))
                        .collect()
                })
                .collect())
        }
    }
}

/// A row as JSON (for the engine's row structs, whose field names are the columns').
pub fn to_json(row: &TextRow) -> serde_json::Value {
    serde_json::Value::Object(
        row.iter()
            .map(|(k, v)| (k.clone(), v.clone().map_or(serde_json::Value::Null, serde_json::Value::String)))
            .collect(),
    )
}

/// A column's text, trimmed; `None` for NULL or blank.
pub fn text<'a>(r: &'a TextRow, c: &str) -> Option<&'a str> {
    r.get(c).and_then(|v| v.as_deref()).map(str::trim).filter(|v| !v.is_empty())
}

/// A time column's text (`YYYY-MM-DD HH:MM:SS[.fff]`, `T` accepted) as a wall-clock time.
pub fn wall_clock(s: &str) -> Option<chrono::NaiveDateTime> {
    ["%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%dT%H:%M:%S%.f"]
        .iter()
        .find_map(|f| chrono::NaiveDateTime::parse_from_str(s.trim(), f).ok())
}
