#ifndef TROVE_FTS_H
#define TROVE_FTS_H

#include <sqlite3.h>

/// Registers Trove's FTS5 extensions on one connection: the auxiliary function
/// `trove_bm25(table, k1, b, weight_of_column_0, weight_of_column_1, …)` (BM25 with choosable parameters, higher is
/// better), `trove_bm25_top(table, 'table', 'MATCH text', limit, k1, b, weights…)` (the same score, or NULL for a row proven to
/// rank below the best `limit` by score then rowid: `ORDER BY score DESC, rowid LIMIT limit` is unchanged, and far
/// fewer rows' lengths are read) and the tokenizer `trove_cjk` (unigrams and bigrams of Chinese, Japanese and Korean runs, nothing else).
/// Returns SQLITE_OK, or an SQLite error code when FTS5 is missing.
int trove_fts_register(sqlite3 *db);

/// Whether `trove_cjk` indexes this Unicode scalar (Han, kana, Hangul): 1 or 0. Query building in Swift uses the
/// same test, so a query is split exactly where documents were.
int trove_is_cjk(unsigned int c);

#endif
