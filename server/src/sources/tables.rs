//! Plain tables read the same way from SQL Server (TDS), PostgreSQL, MySQL/MariaDB and SQLite:
//! the seeds' schedulers keep their state in ordinary tables, and the same layout can live in
//! any of them.
//!
//! Every column comes back as text (or NULL), converted in SQL by the dialect's own rule, so
//! one mapping serves every database and a bad value becomes a diagnostic naming its column.
//! Times are written `YYYY-MM-DD HH:MM:SS[.fff]`. Connections are read-only (PostgreSQL
//! `default_transaction_read_only`, SQLite `mode=ro`, SQL Server `ApplicationIntent=ReadOnly`,
//! MySQL `SET SESSION TRANSACTION READ ONLY`).
//!
//! For the incremental kinds: [`read_end`] reads the row at one end of a table by its key
//! (`WHERE key = (SELECT MAX(key) …)`, which an index answers: an `ORDER BY` on the text a
//! column is read as would sort as text and use none), and [`counted`] counts the rows each
//! table's reads fetched (`connect::TablesSource::rows_read`; [`counted_each`] also the queries
//! and the largest answer).
//!
//! The tables that grow are read by pages of [`PAGE`] rows (keyset pagination, [`page_sql`]:
//! `WHERE … AND key > last ORDER BY t.key` with SQL Server's `TOP (n)` or everyone else's
//! `LIMIT n`; `t.key` is the column itself, as an `ORDER BY key` would sort the text it is read
//! as): [`read_pages`] by an integer key, [`read_pages_by_time`] by a time that is no unique
//! key (each page from the second the one before ended in), [`read_keys`] lists of keys.
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

/// A column as text, named `c`: times with every fractional digit the column keeps
/// (PostgreSQL and MySQL to the microsecond, SQL Server to its 100 ns).
fn expr(db: &TablesDb, col: Col) -> String {
    match (db, col) {
        (TablesDb::SqlServer(_), Col::Plain(c)) => format!("CONVERT(nvarchar(4000), {c}) AS {c}"),
        (TablesDb::SqlServer(_), Col::Time(c)) => format!("REPLACE(CONVERT(nvarchar(30), {c}, 126), 'T', ' ') AS {c}"),
        (TablesDb::Postgres(_), Col::Plain(c)) => format!("CAST(\"{c}\" AS text) AS \"{c}\""),
        (TablesDb::Postgres(_), Col::Time(c)) => format!("to_char(\"{c}\", 'YYYY-MM-DD HH24:MI:SS.US') AS \"{c}\""),
        (TablesDb::Sqlite(_), Col::Plain(c) | Col::Time(c)) => format!("CAST(\"{c}\" AS TEXT) AS \"{c}\""),
        (TablesDb::MySql(_), Col::Plain(c)) => format!("CAST(`{c}` AS CHAR) AS `{c}`"),
        (TablesDb::MySql(_), Col::Time(c)) => format!("DATE_FORMAT(`{c}`, '%Y-%m-%d %H:%i:%s.%f') AS `{c}`"),
    }
}

fn ident(db: &TablesDb, table: &str) -> String {
    match db {
        TablesDb::SqlServer(_) => format!("dbo.{table}"),
        TablesDb::MySql(_) => format!("`{table}`"),
        _ => format!("\"{table}\""),
    }
}

/// How the database spells a table and its columns, where that can differ from the design's
/// spelling: PostgreSQL folds unquoted names to lower case (`CREATE TABLE ScheduledJobs`
/// makes `scheduledjobs`), and MySQL/MariaDB table names follow the file system's case. SQL
/// Server and SQLite compare names case-insensitively: nothing to resolve there.
#[derive(Clone, Debug, Default)]
pub struct Spelling {
    /// The table's own name; `None`: as the design spells it.
    pub table: Option<String>,
    /// The design's column name → the table's (lower-cased key).
    pub columns: BTreeMap<String, String>,
    /// Columns (the design's names, lower-cased) of MySQL's `BIT` type, which read as bytes
    /// unless made a number first.
    pub bits: std::collections::BTreeSet<String>,
    /// Time columns (the design's names, lower-cased) the table holds as another type (text,
    /// a number): read as they are, so that a value that is not a time reaches the engine,
    /// which names it, instead of the dialect's time formatting failing or making it NULL.
    pub untimed: std::collections::BTreeSet<String>,
}

/// The SELECT [`read`] sends: the columns as text, then `tail` (a WHERE/ORDER BY built by the
/// caller from numbers and dates Sundial formats itself, never from outside text). Where the
/// table spells its names otherwise, an inner SELECT renames them to the design's, so `tail`
/// and the mapping always use the design's names.
pub fn select_sql(db: &TablesDb, table: &str, cols: &[Col], tail: &str) -> String {
    select_sql_spelled(db, table, cols, tail, &Spelling::default())
}

fn select_sql_spelled(db: &TablesDb, table: &str, cols: &[Col], tail: &str, spelling: &Spelling) -> String {
    let (list, from) = select_parts(db, table, cols, spelling, false);
    format!("SELECT {list} FROM {from} {tail}").trim_end().to_owned()
}

/// The column list as text and the FROM of a SELECT of `cols` (the table named `t` when `alias`,
/// as it always is when renamed, so that `t.column` is the column itself, not the text it is read
/// as).
fn select_parts(db: &TablesDb, table: &str, cols: &[Col], spelling: &Spelling, alias: bool) -> (String, String) {
    let list: Vec<String> = cols
        .iter()
        .map(|c| match (db, c) {
            // BIT(1) as text is the byte 0x01; as a number first, it is "1".
            (TablesDb::MySql(_), Col::Plain(n)) if spelling.bits.contains(&n.to_lowercase()) => {
                format!("CAST(`{n}` + 0 AS CHAR) AS `{n}`")
            }
            (_, Col::Time(n)) if spelling.untimed.contains(&n.to_lowercase()) => expr(db, Col::Plain(n)),
            _ => expr(db, *c),
        })
        .collect();
    let renamed = spelling.table.is_some()
        || cols.iter().any(|c| spelling.columns.get(&c.name().to_lowercase()).is_some_and(|a| a != c.name()));
    let from = if renamed {
        let inner: Vec<String> = cols
            .iter()
            .map(|c| {
                let actual = spelling.columns.get(&c.name().to_lowercase()).map_or(c.name(), String::as_str);
                format!("{} AS {}", column(db, actual), column(db, c.name()))
            })
            .collect();
        let name = spelling.table.as_deref().unwrap_or(table);
        format!("(SELECT {} FROM {}) AS t", inner.join(", "), ident(db, name))
    } else if alias {
        format!("{} AS t", ident(db, table))
    } else {
        ident(db, table)
    };
    (list.join(", "), from)
}

/// Rows a paged read ([`read_pages`], [`read_pages_by_time`], [`read_keys`]) asks for at once, as
/// msdb's reads do (`msdb_rows::PAGE`).
pub const PAGE: usize = super::msdb_rows::PAGE as usize;

/// The SELECT of one page: at most [`PAGE`] rows of `cols` where `cond` holds (`""`: every row),
/// in the order of the column `key` itself (`t.key`: an `ORDER BY` on the name alone would sort
/// the text it is read as), by `TOP` on SQL Server and `LIMIT` elsewhere. `cond` is built by the
/// caller from Sundial's own numbers and dates, never from outside text.
pub fn page_sql(db: &TablesDb, table: &str, cols: &[Col], cond: &str, key: &str) -> String {
    page_sql_spelled(db, table, cols, cond, key, &Spelling::default())
}

fn page_sql_spelled(db: &TablesDb, table: &str, cols: &[Col], cond: &str, key: &str, spelling: &Spelling) -> String {
    let (list, from) = select_parts(db, table, cols, spelling, true);
    let filter = if cond.is_empty() { String::new() } else { format!(" WHERE {cond}") };
    let order = format!("ORDER BY t.{}", column(db, key));
    match db {
        TablesDb::SqlServer(_) => format!("SELECT TOP ({PAGE}) {list} FROM {from}{filter} {order}"),
        _ => format!("SELECT {list} FROM {from}{filter} {order} LIMIT {PAGE}"),
    }
}

/// The table's spelling in `db` (see [`Spelling`]). Best effort: when the catalog shows
/// nothing (no such table, or no privilege to see it), the design's names are used and the
/// SELECT itself says what is wrong.
async fn spelling(db: &TablesDb, table: &str, cols: &[Col]) -> Result<Spelling, SourceError> {
    // Reads the catalog: every (table, column) whose table name matches case-insensitively.
    let found: Vec<(String, String, String)> = match db {
        TablesDb::Postgres(pool) => sqlx::query_as(
            "SELECT c.relname::text, a.attname::text, format_type(a.atttypid, NULL) FROM pg_catalog.pg_class c \
             JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid \
             WHERE lower(c.relname) = lower($1) AND c.relkind IN ('r', 'v', 'm', 'p', 'f') \
             AND pg_catalog.pg_table_is_visible(c.oid) AND a.attnum > 0 AND NOT a.attisdropped",
        )
        .bind(table)
        .fetch_all(pool)
        .await
        .map_err(|e| catalog_error(table, e))?,
        TablesDb::MySql(pool) => sqlx::query_as(
            "SELECT CAST(TABLE_NAME AS CHAR), CAST(COLUMN_NAME AS CHAR), CAST(DATA_TYPE AS CHAR) FROM information_schema.COLUMNS \
             WHERE TABLE_SCHEMA = DATABASE() AND LOWER(TABLE_NAME) = LOWER(?)",
        )
        .bind(table)
        .fetch_all(pool)
        .await
        .map_err(|e| catalog_error(table, e))?,
        TablesDb::SqlServer(_) | TablesDb::Sqlite(_) => return Ok(Spelling::default()),
    };
    // The design's exact spelling wins where both exist (quoted and unquoted tables).
    let Some(actual) = found.iter().map(|f| &f.0).find(|t| *t == table).or(found.first().map(|f| &f.0)).cloned() else {
        return Ok(Spelling::default());
    };
    let mine: Vec<&String> = found.iter().filter(|f| f.0 == actual).map(|f| &f.1).collect();
    let is_bit = |column: &str| {
        matches!(db, TablesDb::MySql(_))
            && found.iter().any(|f| f.0 == actual && f.1 == column && f.2.eq_ignore_ascii_case("bit"))
    };
    let is_time = |column: &str| {
        found.iter().filter(|f| f.0 == actual && f.1 == column).all(|f| {
            let ty = f.2.to_ascii_lowercase();
            ty.starts_with("date") || ty.starts_with("time")
        })
    };
    let mut bits = std::collections::BTreeSet::new();
    let mut untimed = std::collections::BTreeSet::new();
    let mut columns = BTreeMap::new();
    for c in cols {
        let name = c.name();
        let Some(a) = mine.iter().find(|a| a.as_str() == name).or(mine.iter().find(|a| a.eq_ignore_ascii_case(name)))
        else {
            return Err(SourceError::Missing {
                object: format!("column {name} of table {actual}"),
                hint: " (the scheduler's design has it; an older or altered table?)".into(),
            });
        };
        if is_bit(a) {
            bits.insert(name.to_lowercase());
        }
        if matches!(c, Col::Time(_)) && !is_time(a) {
            untimed.insert(name.to_lowercase());
        }
        columns.insert(name.to_lowercase(), (*a).clone());
    }
    Ok(Spelling { table: (actual != table).then_some(actual), columns, bits, untimed })
}

/// The catalog query failed: the connection lost is said as such; otherwise the catalog
/// could not be read.
fn catalog_error(table: &str, e: sqlx::Error) -> SourceError {
    match e {
        sqlx::Error::Database(_) => SourceError::query(table, "the catalog could not be read"),
        e => SourceError::driver(table, &e),
    }
}

/// A quoted column name in `db`'s dialect, for the caller's `tail`.
pub fn column(db: &TablesDb, name: &str) -> String {
    match db {
        TablesDb::SqlServer(_) => name.to_owned(),
        TablesDb::MySql(_) => format!("`{name}`"),
        _ => format!("\"{name}\""),
    }
}

/// A timestamp literal in `db`'s dialect (to the second: a fraction is dropped).
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

/// What the reads of one table fetched, all told.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fetched {
    /// Rows fetched.
    pub rows: u64,
    /// Queries sent.
    pub queries: u64,
    /// The most rows one query answered.
    pub largest: u64,
}

impl Fetched {
    /// Both counts together (the largest answer: the larger).
    pub fn add(&mut self, other: Fetched) {
        self.rows += other.rows;
        self.queries += other.queries;
        self.largest = self.largest.max(other.largest);
    }
}

tokio::task_local! {
    /// What the reads made inside [`counted`] fetched, per table.
    static FETCHED: std::cell::RefCell<BTreeMap<String, Fetched>>;
}

/// Runs `read` counting the rows each table's reads inside it fetch (for tests and
/// figures: how much of a history a poll asked for); the counts come back beside its answer.
pub async fn counted<T>(read: impl Future<Output = T>) -> (T, BTreeMap<String, u64>) {
    let (out, fetched) = counted_each(read).await;
    (out, fetched.into_iter().map(|(t, f)| (t, f.rows)).collect())
}

/// [`counted`], with the queries sent and the largest answer of each table.
pub async fn counted_each<T>(read: impl Future<Output = T>) -> (T, BTreeMap<String, Fetched>) {
    FETCHED
        .scope(std::cell::RefCell::new(BTreeMap::new()), async move {
            let out = read.await;
            (out, FETCHED.with(|f| f.take()))
        })
        .await
}

/// Every row of `SELECT cols FROM table tail`, as text.
pub async fn read(db: &mut TablesDb, table: &str, cols: &[Col], tail: &str) -> Result<Vec<TextRow>, SourceError> {
    // Audited: built from Sundial's constant table and column names and from dates Sundial
    // formats itself (see `select_sql`); no text from outside enters it.
    let spelled = spelling(db, table, cols).await?;
    let sql = select_sql_spelled(db, table, cols, tail, &spelled);
    counted_rows(table, run(db, table, cols, sql).await?)
}

/// The rows of `table` whose `key` is its largest (`largest`) or smallest, as text: `WHERE key =
/// (SELECT MAX(key) …)`, which an index on `key` answers without a scan (an `ORDER BY key` on
/// the text a column is read as could not use it).
pub async fn read_end(
    db: &mut TablesDb,
    table: &str,
    cols: &[Col],
    key: &str,
    largest: bool,
) -> Result<Vec<TextRow>, SourceError> {
    let spelled = spelling(db, table, cols).await?;
    let actual_table = spelled.table.as_deref().unwrap_or(table);
    let actual_key = spelled.columns.get(&key.to_lowercase()).map_or(key, String::as_str);
    let tail = format!(
        "WHERE {} = (SELECT {}({}) FROM {})",
        column(db, key),
        if largest { "MAX" } else { "MIN" },
        column(db, actual_key),
        ident(db, actual_table)
    );
    let sql = select_sql_spelled(db, table, cols, &tail, &spelled);
    counted_rows(table, run(db, table, cols, sql).await?)
}

fn counted_rows(table: &str, rows: Vec<TextRow>) -> Result<Vec<TextRow>, SourceError> {
    // Outside `counted` nothing is counted.
    let n = rows.len() as u64;
    let _ = FETCHED.try_with(|f| {
        f.borrow_mut().entry(table.to_owned()).or_default().add(Fetched { rows: n, queries: 1, largest: n })
    });
    Ok(rows)
}

/// Every row of `table` where `cond` holds (`""`: every row) and whose integer `key` is past
/// `after` (`None`: from the first), by pages of [`PAGE`] rows in the key's order (keyset: each
/// page asks `key >` the largest key the last one read), in that order. A full page whose keys do
/// not read as numbers growing (not an integer key) is not paged: the rest is read in one query,
/// as before paging. `cond` is built from Sundial's own numbers and dates.
pub async fn read_pages(
    db: &mut TablesDb,
    table: &str,
    cols: &[Col],
    cond: &str,
    key: &str,
    after: Option<i64>,
) -> Result<Vec<TextRow>, SourceError> {
    let spelled = spelling(db, table, cols).await?;
    let k = column(db, key);
    let past = |last: Option<i64>| match (cond.is_empty(), last) {
        (_, None) => cond.to_owned(),
        (true, Some(l)) => format!("{k} > {l}"),
        (false, Some(l)) => format!("({cond}) AND {k} > {l}"),
    };
    let mut last = after;
    let mut out = Vec::new();
    loop {
        let sql = page_sql_spelled(db, table, cols, &past(last), key, &spelled);
        let rows = counted_rows(table, run(db, table, cols, sql).await?)?;
        let full = rows.len() >= PAGE;
        let largest = rows.iter().filter_map(|r| text(r, key)?.parse::<i64>().ok()).max();
        out.extend(rows);
        if !full {
            return Ok(out);
        }
        match largest {
            Some(l) if last.is_none_or(|before| l > before) => last = Some(l),
            _ => {
                // Not an integer key: the pages cannot go on from one; the rest at once.
                let cond = past(last);
                let tail = if cond.is_empty() { String::new() } else { format!("WHERE {cond}") };
                let sql = select_sql_spelled(db, table, cols, &tail, &spelled);
                out = counted_rows(table, run(db, table, cols, sql).await?)?;
                return Ok(out);
            }
        }
    }
}

/// Every row of `table` whose time column `key` is at or after `from` and before `until` (to the
/// second: a literal has whole seconds), by pages of [`PAGE`] rows in the column's order. A time
/// is no unique key: each page asks `key >=` the second of the latest start the last page read,
/// whose rows it drops (that second's rows are read again, whole, by the next page); a full page
/// within one second is followed by that second's rows at once. A full page whose times do not
/// read, or go back (text in a SQLite column that sorts otherwise), is not paged: the rest is
/// read in one query.
pub async fn read_pages_by_time(
    db: &mut TablesDb,
    table: &str,
    cols: &[Col],
    key: &str,
    from: chrono::NaiveDateTime,
    until: Option<chrono::NaiveDateTime>,
) -> Result<Vec<TextRow>, SourceError> {
    use chrono::Timelike;
    let spelled = spelling(db, table, cols).await?;
    let k = column(db, key);
    let second = |t: chrono::NaiveDateTime| t.with_nanosecond(0).unwrap_or(t);
    let range = |db: &TablesDb, from: chrono::NaiveDateTime, until: Option<chrono::NaiveDateTime>| {
        let mut cond = format!("{k} >= {}", time_literal(db, from));
        if let Some(u) = until {
            cond.push_str(&format!(" AND {k} < {}", time_literal(db, u)));
        }
        cond
    };
    let mut at = second(from);
    let mut out = Vec::new();
    loop {
        let sql = page_sql_spelled(db, table, cols, &range(db, at, until), key, &spelled);
        let rows = counted_rows(table, run(db, table, cols, sql).await?)?;
        if rows.len() < PAGE {
            out.extend(rows);
            return Ok(out);
        }
        let started = |r: &TextRow| text(r, key).and_then(wall_clock).map(second);
        let last = rows.iter().filter_map(started).max();
        let before = |r: &TextRow, last: chrono::NaiveDateTime| started(r).is_none_or(|s| s < last);
        match last {
            Some(last) if last > at && rows.iter().any(|r| before(r, last)) => {
                // The rows of its last second may go on past the page: the next page has them.
                out.extend(rows.into_iter().filter(|r| before(r, last)));
                at = last;
            }
            Some(last) if last >= at => {
                // A page's worth in one second: that second whole, then on from the next.
                at = last;
                let next = at + chrono::TimeDelta::seconds(1);
                let tail = format!("WHERE {}", range(db, at, Some(until.map_or(next, |u| u.min(next)))));
                let sql = select_sql_spelled(db, table, cols, &tail, &spelled);
                out.extend(counted_rows(table, run(db, table, cols, sql).await?)?);
                if until.is_some_and(|u| next >= u) {
                    return Ok(out);
                }
                at = next;
            }
            _ => {
                let tail = format!("WHERE {}", range(db, at, until));
                let sql = select_sql_spelled(db, table, cols, &tail, &spelled);
                out.extend(counted_rows(table, run(db, table, cols, sql).await?)?);
                return Ok(out);
            }
        }
    }
}

/// The rows of `table` whose integer `key` is one of `keys`, by lists of at most [`PAGE`] keys
/// (`key IN (…)`, Sundial's own numbers).
pub async fn read_keys(
    db: &mut TablesDb,
    table: &str,
    cols: &[Col],
    key: &str,
    keys: &[i64],
) -> Result<Vec<TextRow>, SourceError> {
    let mut out = Vec::new();
    if keys.is_empty() {
        return Ok(out);
    }
    let spelled = spelling(db, table, cols).await?;
    for chunk in keys.chunks(PAGE) {
        let list: Vec<String> = chunk.iter().map(i64::to_string).collect();
        let tail = format!("WHERE {} IN ({})", column(db, key), list.join(", "));
        let sql = select_sql_spelled(db, table, cols, &tail, &spelled);
        out.extend(counted_rows(table, run(db, table, cols, sql).await?)?);
    }
    Ok(out)
}

/// `sql` (a SELECT of `cols`, as text) sent to `db`.
async fn run(db: &mut TablesDb, table: &str, cols: &[Col], sql: String) -> Result<Vec<TextRow>, SourceError> {
    let names: Vec<&str> = cols.iter().map(|c| c.name()).collect();
    let sqlx_err = |e: sqlx::Error| match &e {
        sqlx::Error::Database(d) => {
            let number = d.try_downcast_ref::<sqlx::mysql::MySqlDatabaseError>().map(|m| u32::from(m.number()));
            classify(table, d.code().as_deref(), number, d.message().to_owned())
        }
        e => SourceError::driver(table, e),
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
                e => SourceError::tds(table, &e),
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

/// A `timestamptz` as a file holds it: `YYYY-MM-DD HH:MM:SS[.f]`, with an offset (`+00`,
/// `+00:00`) or without (UTC).
pub fn instant(s: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    let s = s.trim();
    ["%Y-%m-%d %H:%M:%S%.f%#z", "%Y-%m-%dT%H:%M:%S%.f%#z"]
        .iter()
        .find_map(|f| chrono::DateTime::parse_from_str(s, f).ok())
        .map(|t| t.to_utc())
        .or_else(|| wall_clock(s).map(|t| t.and_utc()))
}

/// A time column's text (`YYYY-MM-DD HH:MM:SS[.fff]`, `T` accepted) as a wall-clock time.
pub fn wall_clock(s: &str) -> Option<chrono::NaiveDateTime> {
    ["%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%dT%H:%M:%S%.f"]
        .iter()
        .find_map(|f| chrono::NaiveDateTime::parse_from_str(s.trim(), f).ok())
}
