//! msdb-shaped tables in SQLite: the embedded demo. (Owner: demo. Stub.)
