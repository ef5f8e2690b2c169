//! Components shared by pages.
