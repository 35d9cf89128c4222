#ifndef TROVE_FTS_H
#define TROVE_FTS_H

#include <sqlite3.h>

/// Registers Trove's FTS5 extensions on one connection: the auxiliary functions
/// `trove_bm25(table, k1, b, weight_of_column_0, weight_of_column_1, …)` (BM25 with choosable parameters, higher is
/// better), `trove_bm25_top(table, 'table', 'MATCH text', first, count, limit, k1, b, weights…)` (the same score of
/// the `count` phrases from the `first`-th, 0 for all after it, with the statistics of the query 'MATCH text'; or NULL
/// for a row proven to rank below the best `limit` by score then rowid: `ORDER BY score DESC, rowid LIMIT limit` is
/// unchanged, and far fewer rows' lengths are read), `trove_bm25_idf(table, 'table', 'MATCH text')` (the phrases'
/// IDF, space-separated) and the tokenizer `trove_cjk` (unigrams and bigrams of Chinese, Japanese and Korean runs,
/// nothing else). Returns SQLITE_OK, or an SQLite error code when FTS5 is missing.
int trove_fts_register(sqlite3 *db);

/// The IDF a phrase in at least half the rows gets (its Robertson-Sparck Jones IDF would be zero or negative):
/// matching it still counts, by a sliver, so a row holding only such words scores at most this × (k1 + 1) each.
#define TROVE_BM25_SLIVER 1e-6

/// Whether `trove_cjk` indexes this Unicode scalar (Han, kana, Hangul): 1 or 0. Query building in Swift uses the
/// same test, so a query is split exactly where documents were.
int trove_is_cjk(unsigned int c);

#endif
