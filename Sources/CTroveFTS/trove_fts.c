// FTS5 extensions registered through fts5_api (https://sqlite.org/fts5.html#extending_fts5). In C because both are
// callbacks FTS5 calls once per row or per token with pointers into its own buffers. Over 400 lines on purpose: one C
// extension unit, whose helpers stay `static` to it.
#include "trove_fts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// MARK: fts5_api

static fts5_api *fts5_api_of(sqlite3 *db) {
    fts5_api *api = NULL;
    sqlite3_stmt *statement = NULL;
    if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &statement, NULL) == SQLITE_OK) {
        sqlite3_bind_pointer(statement, 1, (void *)&api, "fts5_api_ptr", NULL);
        sqlite3_step(statement);
    }
    sqlite3_finalize(statement);
    return api;
}

// MARK: trove_bm25

// Per-statement data, computed on the first row: FTS5's own statistics, as its bm25() computes them.
typedef struct {
    int first;   // the statement's first phrase scored (phrases before it only select rows)
    int phrases; // phrases scored, from `first`
    sqlite3_int64 rows;
    double average_length; // tokens per row, all columns together
    double *idf;           // one per phrase scored
} BM25Data;

static void bm25_data_free(void *pointer) {
    BM25Data *data = pointer;
    if (data) sqlite3_free(data->idf);
    sqlite3_free(data);
}

// Robertson-Sparck Jones IDF; a term in over half the rows would score negative, so it gets a sliver instead (as
// FTS5's bm25() does): matching it is still better than not.
static double rsj_idf(sqlite3_int64 rows, sqlite3_int64 hits) {
    double idf = log((rows - hits + 0.5) / (hits + 0.5));
    return idf > TROVE_BM25_SLIVER ? idf : TROVE_BM25_SLIVER;
}

typedef struct {
    sqlite3_int64 hits, enough;
} RowCount;

static int count_row(const Fts5ExtensionApi *api, Fts5Context *fts, void *userdata) {
    (void)api;
    (void)fts;
    RowCount *count = userdata;
    // A word in most rows (every row of a synthetic set, "the" in a real one) stops being counted halfway.
    return ++count->hits >= count->enough ? SQLITE_DONE : SQLITE_OK;
}

// Fills `data` with the statistics of `phrases` phrases from `first` (average length, IDF per phrase).
static int bm25_statistics(const Fts5ExtensionApi *api, Fts5Context *fts, int first, int phrases, BM25Data *data) {
    sqlite3_int64 rows = 0, tokens = 0;
    int rc = api->xRowCount(fts, &rows);
    if (rc == SQLITE_OK) rc = api->xColumnTotalSize(fts, -1, &tokens);
    if (rc != SQLITE_OK) return rc;
    data->first = first;
    data->phrases = phrases;
    data->rows = rows;
    data->average_length = rows > 0 ? (double)tokens / (double)rows : 1.0;
    data->idf = sqlite3_malloc64(sizeof(double) * (phrases > 0 ? phrases : 1));
    if (!data->idf) return SQLITE_NOMEM;
    // The fewest rows at which a phrase's IDF is the sliver: counting past them cannot change it.
    sqlite3_int64 enough = rows / 2 > 2 ? rows / 2 - 2 : 0;
    while (enough < rows && rsj_idf(rows, enough) > TROVE_BM25_SLIVER) enough++;
    for (int phrase = 0; phrase < phrases && rc == SQLITE_OK; phrase++) {
        RowCount count = {0, enough > 0 ? enough : 1};
        rc = api->xQueryPhrase(fts, first + phrase, &count, count_row);
        data->idf[phrase] = rsj_idf(rows, count.hits);
    }
    return rc;
}

static int bm25_data(const Fts5ExtensionApi *api, Fts5Context *fts, BM25Data **out) {
    BM25Data *data = api->xGetAuxdata(fts, 0);
    if (data) {
        *out = data;
        return SQLITE_OK;
    }
    data = sqlite3_malloc(sizeof(BM25Data));
    if (!data) return SQLITE_NOMEM;
    memset(data, 0, sizeof(BM25Data));
    int rc = bm25_statistics(api, fts, 0, api->xPhraseCount(fts), data);
    if (rc == SQLITE_OK) rc = api->xSetAuxdata(fts, data, bm25_data_free);
    else bm25_data_free(data);
    if (rc != SQLITE_OK) return rc;
    *out = data;
    return SQLITE_OK;
}

// The weighted frequency of each phrase in the current row into `frequency[0 ..< phrases]`, and the most instances
// any one phrase has in it, a lower bound on the row's length (each instance starts at its own token).
// `frequency` holds 2 × phrases doubles: the second half counts instances.
static int row_frequencies(const Fts5ExtensionApi *api, Fts5Context *fts, const BM25Data *data, int argc,
                           sqlite3_value **argv, int first_weight, double *frequency, int *most_instances) {
    int phrases = data->phrases;
    double *counts = frequency + phrases;
    memset(frequency, 0, sizeof(double) * 2 * (phrases > 0 ? phrases : 1));
    int columns = api->xColumnCount(fts), rc = SQLITE_OK;
    // Phrase by phrase (each its own position list) rather than xInst, which first merges all of them by position.
    for (int phrase = 0; phrase < phrases && rc == SQLITE_OK; phrase++) {
        Fts5PhraseIter iterator;
        int column = -1, offset = -1;
        rc = api->xPhraseFirst(fts, data->first + phrase, &iterator, &column, &offset);
        for (; rc == SQLITE_OK && column >= 0; api->xPhraseNext(fts, &iterator, &column, &offset)) {
            if (column >= columns) continue;
            double weight = first_weight + column < argc ? sqlite3_value_double(argv[first_weight + column]) : 1.0;
            frequency[phrase] += weight;
            counts[phrase] += 1;
        }
    }
    double most = 1;
    for (int phrase = 0; phrase < phrases; phrase++)
        if (counts[phrase] > most) most = counts[phrase];
    *most_instances = (int)most;
    return rc;
}

// Okapi BM25 of a row of `length` tokens with these frequencies. One out-of-line function for the score and its
// bound, so both round alike: the sum only falls as `length` grows (k1, b ≥ 0), which the top-k bound relies on.
__attribute__((noinline)) static double bm25_score(const BM25Data *data, const double *frequency, double k1,
                                                   double b, double length) {
    double norm = k1 * (1 - b + b * length / data->average_length);
    double score = 0;
    for (int phrase = 0; phrase < data->phrases; phrase++) {
        double f = frequency[phrase];
        if (f > 0) score += data->idf[phrase] * f * (k1 + 1) / (f + norm);
    }
    return score;
}

// trove_bm25(table, k1, b, column weights…): Okapi BM25 of the current row, higher is better. A term's frequency is
// the weighted sum of its occurrences in each column; the row's length is its token count over all columns.
static void trove_bm25(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *context, int argc,
                       sqlite3_value **argv) {
    if (argc < 2) {
        sqlite3_result_error(context, "trove_bm25 needs k1 and b", -1);
        return;
    }
    double k1 = sqlite3_value_double(argv[0]);
    double b = sqlite3_value_double(argv[1]);
    BM25Data *data = NULL;
    int rc = bm25_data(api, fts, &data);
    double *frequency = NULL;
    if (rc == SQLITE_OK) {
        frequency = sqlite3_malloc64(sizeof(double) * 2 * (data->phrases > 0 ? data->phrases : 1));
        if (!frequency) rc = SQLITE_NOMEM;
    }
    int most_instances = 1, length = 0;
    if (rc == SQLITE_OK) rc = row_frequencies(api, fts, data, argc, argv, 2, frequency, &most_instances);
    if (rc == SQLITE_OK) rc = api->xColumnSize(fts, -1, &length);
    if (rc == SQLITE_OK) sqlite3_result_double(context, bm25_score(data, frequency, k1, b, length));
    else sqlite3_result_error_code(context, rc);
    sqlite3_free(frequency);
}

// MARK: trove_bm25_top

// trove_bm25_top(table, 'table', 'MATCH text', limit, k1, b, column weights…): the same score as trove_bm25, or NULL for a row
// proven to rank below the best `limit` (by score, then rowid) of the rows scored before it in this statement.
// `ORDER BY score DESC, rowid LIMIT limit` over it returns exactly what trove_bm25 would. limit 0 scores every row.
//
// Why: a query whose words occur in most passages makes FTS5 score every one of them, and the row's length was a
// B-tree lookup per row (xColumnSize), most of the time. Here a row is first bounded by its term frequencies alone
// (its length is at least the instances of any one phrase, and BM25 only falls as length grows); a row that cannot
// beat the current `limit`-th is never looked up. The lengths that are needed come from a forward cursor over the
// table's %_docsize, which FTS5's ascending rowid order reads page by page.

// Lengths from "<table>_docsize" (one SQLite varint of tokens per column), read forward.
typedef struct {
    sqlite3_stmt *statement; // SELECT id, sz FROM "<table>_docsize" WHERE id >= ?1
    int positioned;          // the statement is on a row
} SizeReader;

// A forward step costs about a tenth of a new lookup, so a gap of up to this many rows is stepped over.
enum { SIZE_READER_STEPS = 8 };

typedef struct {
    double score;
    sqlite3_int64 rowid;
} Ranked;

typedef struct {
    BM25Data stats;
    SizeReader sizes;
    int limit, count;
    Ranked *heap;      // the best `count` rows so far, the lowest-ranked at heap[0]
    double *frequency; // 2 × phrases, for row_frequencies
    sqlite3_int64 last_rowid;
    int has_last, last_null;
    double last_score;
} TopData;

static void top_data_free(void *pointer) {
    TopData *data = pointer;
    if (!data) return;
    sqlite3_finalize(data->sizes.statement);
    sqlite3_free(data->stats.idf);
    sqlite3_free(data->heap);
    sqlite3_free(data->frequency);
    sqlite3_free(data);
}

// Reads one SQLite varint (at most 9 bytes, the 9th with 8 bits); returns the bytes used, 0 when truncated.
static int read_varint(const unsigned char *bytes, int available, sqlite3_uint64 *value) {
    sqlite3_uint64 v = 0;
    for (int i = 0; i < 8 && i < available; i++) {
        v = (v << 7) | (bytes[i] & 0x7F);
        if (!(bytes[i] & 0x80)) {
            *value = v;
            return i + 1;
        }
    }
    if (available < 9) return 0;
    *value = (v << 8) | bytes[8];
    return 9;
}

// The token count of `rowid` over `columns` columns into *length; *found 0 when the table has no such row.
static int read_size(SizeReader *reader, sqlite3_int64 rowid, int columns, int *length, int *found) {
    sqlite3_stmt *statement = reader->statement;
    *found = 0;
    // Step forward when the cursor is a few rows behind; anything else is a new lookup.
    int rc = SQLITE_ROW, seek = !reader->positioned || sqlite3_column_int64(statement, 0) > rowid;
    for (int steps = 0; !seek && rc == SQLITE_ROW && sqlite3_column_int64(statement, 0) < rowid; steps++) {
        if (steps == SIZE_READER_STEPS) seek = 1;
        else rc = sqlite3_step(statement);
    }
    if (seek) {
        sqlite3_reset(statement);
        sqlite3_bind_int64(statement, 1, rowid);
        rc = sqlite3_step(statement);
    }
    reader->positioned = rc == SQLITE_ROW;
    if (rc != SQLITE_ROW) return rc == SQLITE_DONE ? SQLITE_OK : rc;
    if (sqlite3_column_int64(statement, 0) != rowid) return SQLITE_OK;
    const unsigned char *blob = sqlite3_column_blob(statement, 1);
    int available = sqlite3_column_bytes(statement, 1), at = 0;
    sqlite3_uint64 total = 0;
    for (int column = 0; column < columns; column++) {
        sqlite3_uint64 size = 0;
        int used = blob ? read_varint(blob + at, available - at, &size) : 0;
        if (used == 0) return SQLITE_OK; // not the layout this reader knows: the caller asks FTS5
        at += used;
        total += size;
    }
    *length = (int)total;
    *found = 1;
    return SQLITE_OK;
}

// The last statistics trove_bm25_top computed on this connection, for the next statement with the same table and
// query: the ranking and the scores of its winners are two statements, and a `rowid IN (…)` restriction runs the
// MATCH once per id, each of which would count every phrase's rows again. Valid while nothing was written: the
// connection's change count and the file's data version (other connections' commits) are part of the key, and it
// is stored only outside a transaction, so a rollback cannot leave it describing rows that no longer exist.
typedef struct {
    sqlite3 *db;
    char *key; // table, a 0x1F byte, the MATCH text
    sqlite3_int64 rows, tokens, changes;
    unsigned int data_version;
    BM25Data stats;
} StatsCache;

static void stats_cache_free(void *pointer) {
    StatsCache *cache = pointer;
    if (!cache) return;
    sqlite3_free(cache->key);
    sqlite3_free(cache->stats.idf);
    sqlite3_free(cache);
}

// Fills `data` from the cache when it holds this table's and query's statistics for the current contents, else
// computes them (and keeps them when outside a transaction).
static int cached_statistics(const Fts5ExtensionApi *api, Fts5Context *fts, const char *table, const char *match,
                             int first, int phrases, BM25Data *data) {
    StatsCache *cache = api->xUserData(fts);
    sqlite3_int64 rows = 0, tokens = 0;
    int rc = api->xRowCount(fts, &rows);
    if (rc == SQLITE_OK) rc = api->xColumnTotalSize(fts, -1, &tokens);
    if (rc != SQLITE_OK) return rc;
    unsigned int version = 0;
    if (sqlite3_file_control(cache->db, "main", SQLITE_FCNTL_DATA_VERSION, &version) != SQLITE_OK) version = 0;
    sqlite3_int64 changes = sqlite3_total_changes64(cache->db);
    char *key = sqlite3_mprintf("%s\x1f%s", table ? table : "", match ? match : "");
    if (!key) return SQLITE_NOMEM;
    if (cache->key && version != 0 && strcmp(cache->key, key) == 0 && cache->rows == rows &&
        cache->tokens == tokens && cache->changes == changes && cache->data_version == version &&
        cache->stats.phrases == phrases) {
        sqlite3_free(key);
        *data = cache->stats;
        data->first = first;
        data->idf = sqlite3_malloc64(sizeof(double) * (phrases > 0 ? phrases : 1));
        if (!data->idf) return SQLITE_NOMEM;
        memcpy(data->idf, cache->stats.idf, sizeof(double) * (phrases > 0 ? phrases : 1));
        return SQLITE_OK;
    }
    rc = bm25_statistics(api, fts, first, phrases, data);
    if (rc != SQLITE_OK || version == 0 || !sqlite3_get_autocommit(cache->db)) {
        sqlite3_free(key);
        return rc;
    }
    double *idf = sqlite3_malloc64(sizeof(double) * (phrases > 0 ? phrases : 1));
    if (!idf) {
        sqlite3_free(key);
        return SQLITE_OK; // the statistics are fine; only keeping them failed
    }
    memcpy(idf, data->idf, sizeof(double) * (phrases > 0 ? phrases : 1));
    sqlite3_free(cache->key);
    sqlite3_free(cache->stats.idf);
    cache->key = key;
    cache->rows = rows;
    cache->tokens = tokens;
    cache->changes = changes;
    cache->data_version = version;
    cache->stats = *data;
    cache->stats.idf = idf;
    return SQLITE_OK;
}

// The phrases a statement scores: argv[first_at] and argv[first_at + 1] (0 for all after the first); 0 when out of
// range.
static int scored_phrases(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_value **argv, int first_at,
                          int *first, int *phrases) {
    int count = api->xPhraseCount(fts);
    sqlite3_int64 from = sqlite3_value_int64(argv[first_at]), scored = sqlite3_value_int64(argv[first_at + 1]);
    if (from < 0 || from > count || scored < 0 || from + scored > count) return 0;
    *first = (int)from;
    *phrases = scored > 0 ? (int)scored : count - (int)from;
    return 1;
}

static int top_data(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_value **argv, TopData **out) {
    TopData *data = api->xGetAuxdata(fts, 0);
    if (data) {
        *out = data;
        return SQLITE_OK;
    }
    int first = 0, phrases = 0;
    if (!scored_phrases(api, fts, argv, 2, &first, &phrases)) return SQLITE_RANGE;
    data = sqlite3_malloc(sizeof(TopData));
    if (!data) return SQLITE_NOMEM;
    memset(data, 0, sizeof(TopData));
    int rc = cached_statistics(api, fts, (const char *)sqlite3_value_text(argv[0]),
                               (const char *)sqlite3_value_text(argv[1]), first, phrases, &data->stats);
    int slots = data->stats.phrases > 0 ? data->stats.phrases : 1;
    if (rc == SQLITE_OK) {
        data->frequency = sqlite3_malloc64(sizeof(double) * 2 * slots);
        if (!data->frequency) rc = SQLITE_NOMEM;
    }
    // A limit of all rows or more can prune nothing; 0 or less asks for no pruning.
    sqlite3_int64 limit = sqlite3_value_int64(argv[4]);
    data->limit = limit > 0 && limit < data->stats.rows ? (int)limit : 0;
    if (rc == SQLITE_OK && data->limit > 0) {
        data->heap = sqlite3_malloc64(sizeof(Ranked) * data->limit);
        if (!data->heap) rc = SQLITE_NOMEM;
    }
    if (rc == SQLITE_OK) {
        const char *table = (const char *)sqlite3_value_text(argv[0]);
        char *sql = table ? sqlite3_mprintf("SELECT id, sz FROM \"%w_docsize\" WHERE id >= ?1", table) : NULL;
        rc = sql ? sqlite3_prepare_v2(((StatsCache *)api->xUserData(fts))->db, sql, -1, &data->sizes.statement, NULL) : SQLITE_MISUSE;
        sqlite3_free(sql);
    }
    if (rc == SQLITE_OK) rc = api->xSetAuxdata(fts, data, top_data_free);
    else top_data_free(data);
    if (rc != SQLITE_OK) return rc;
    *out = data;
    return SQLITE_OK;
}

// Whether (score, rowid) ranks above `other`: higher score, or equal score and lower rowid.
static int ranks_above(double score, sqlite3_int64 rowid, Ranked other) {
    return score > other.score || (score == other.score && rowid < other.rowid);
}

// Keeps the best `limit`: a min-heap on rank, the lowest-ranked at heap[0].
static void heap_offer(TopData *data, double score, sqlite3_int64 rowid) {
    Ranked *heap = data->heap;
    if (data->count < data->limit) {
        int at = data->count++;
        while (at > 0 && ranks_above(heap[(at - 1) / 2].score, heap[(at - 1) / 2].rowid, (Ranked){score, rowid})) {
            heap[at] = heap[(at - 1) / 2];
            at = (at - 1) / 2;
        }
        heap[at] = (Ranked){score, rowid};
        return;
    }
    if (!ranks_above(score, rowid, heap[0])) return;
    int at = 0;
    for (;;) {
        int child = 2 * at + 1;
        if (child >= data->count) break;
        if (child + 1 < data->count && ranks_above(heap[child].score, heap[child].rowid, heap[child + 1])) child++;
        if (!ranks_above(score, rowid, heap[child])) break;
        heap[at] = heap[child];
        at = child;
    }
    heap[at] = (Ranked){score, rowid};
}

static void trove_bm25_top(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *context, int argc,
                           sqlite3_value **argv) {
    if (argc < 7) {
        sqlite3_result_error(
            context, "trove_bm25_top needs the table's name, the MATCH text, the phrases scored, a limit, k1 and b", -1);
        return;
    }
    double k1 = sqlite3_value_double(argv[5]);
    double b = sqlite3_value_double(argv[6]);
    TopData *data = NULL;
    int rc = top_data(api, fts, argv, &data);
    if (rc == SQLITE_RANGE) {
        sqlite3_result_error(context, "trove_bm25_top: the phrases scored are not in the query", -1);
        return;
    }
    if (rc != SQLITE_OK) {
        sqlite3_result_error_code(context, rc);
        return;
    }
    sqlite3_int64 rowid = api->xRowid(fts);
    // The same row asked twice (an expression used twice) gets the same answer.
    if (data->has_last && data->last_rowid == rowid) {
        if (data->last_null) sqlite3_result_null(context);
        else sqlite3_result_double(context, data->last_score);
        return;
    }
    int most_instances = 1;
    rc = row_frequencies(api, fts, &data->stats, argc, argv, 7, data->frequency, &most_instances);
    if (rc != SQLITE_OK) {
        sqlite3_result_error_code(context, rc);
        return;
    }
    data->has_last = 1;
    data->last_rowid = rowid;
    int full = data->limit > 0 && data->count == data->limit && k1 >= 0 && b >= 0;
    if (full && !ranks_above(bm25_score(&data->stats, data->frequency, k1, b, most_instances), rowid, data->heap[0])) {
        data->last_null = 1;
        sqlite3_result_null(context);
        return;
    }
    int length = 0, found = 0;
    rc = read_size(&data->sizes, rowid, api->xColumnCount(fts), &length, &found);
    if (rc == SQLITE_OK && !found) rc = api->xColumnSize(fts, -1, &length);
    if (rc != SQLITE_OK) {
        data->has_last = 0;
        sqlite3_result_error_code(context, rc);
        return;
    }
    double score = bm25_score(&data->stats, data->frequency, k1, b, length);
    if (data->limit > 0) heap_offer(data, score, rowid);
    data->last_null = 0;
    data->last_score = score;
    sqlite3_result_double(context, score);
}

// MARK: trove_bm25_idf

// trove_bm25_idf(table, 'table', 'MATCH text'): the IDF of each of the query's phrases, as trove_bm25_top computes
// it, as text ("idf idf …", %.17g so it reads back exactly); the same statistics are kept for trove_bm25_top's
// next statement with this MATCH text. Called on one row (LIMIT 1): the caller plans its statements from it.
static void trove_bm25_idf(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *context, int argc,
                           sqlite3_value **argv) {
    if (argc < 2) {
        sqlite3_result_error(context, "trove_bm25_idf needs the table's name and the MATCH text", -1);
        return;
    }
    BM25Data stats;
    memset(&stats, 0, sizeof(stats));
    int rc = cached_statistics(api, fts, (const char *)sqlite3_value_text(argv[0]),
                               (const char *)sqlite3_value_text(argv[1]), 0, api->xPhraseCount(fts), &stats);
    sqlite3_str *text = sqlite3_str_new(NULL);
    for (int phrase = 0; rc == SQLITE_OK && phrase < stats.phrases; phrase++)
        sqlite3_str_appendf(text, phrase ? " %.17g" : "%.17g", stats.idf[phrase]);
    sqlite3_free(stats.idf);
    char *result = sqlite3_str_finish(text);
    if (rc != SQLITE_OK) {
        sqlite3_free(result);
        sqlite3_result_error_code(context, rc);
    } else if (!result && stats.phrases > 0) {
        sqlite3_result_error_nomem(context);
    } else {
        sqlite3_result_text(context, result ? result : "", -1, sqlite3_free);
    }
}

// MARK: trove_cjk

// Han, kana and Hangul: scripts written without spaces between words (Korean has spaces, but particles and endings
// attach to the word), so unicode61 makes one token of a whole run and a word inside it can never match.
int trove_is_cjk(unsigned int c) {
    return (c >= 0x1100 && c <= 0x11FF)       // Hangul Jamo
           || (c >= 0x3040 && c <= 0x30FF)    // Hiragana, Katakana (with ー)
           || (c >= 0x3130 && c <= 0x318F)    // Hangul compatibility Jamo
           || (c >= 0x31F0 && c <= 0x31FF)    // Katakana phonetic extensions
           || (c >= 0x3400 && c <= 0x4DBF)    // CJK extension A
           || (c >= 0x4E00 && c <= 0x9FFF)    // CJK unified ideographs
           || (c >= 0xAC00 && c <= 0xD7AF)    // Hangul syllables
           || (c >= 0xF900 && c <= 0xFAFF)    // CJK compatibility ideographs
           || (c >= 0xFF66 && c <= 0xFF9F)    // half-width Katakana
           || (c >= 0x20000 && c <= 0x3FFFF); // CJK extensions B…
}

// Decodes one UTF-8 character at text[*at], advancing *at; invalid bytes decode as themselves (never CJK).
static unsigned int next_character(const unsigned char *text, int length, int *at) {
    unsigned int c = text[(*at)++];
    int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
    if (extra == 0 || *at + extra > length) return c < 0x80 ? c : 0xFFFD;
    c &= 0x3F >> extra;
    for (int i = 0; i < extra; i++) {
        if ((text[*at] & 0xC0) != 0x80) return 0xFFFD;
        c = (c << 6) | (text[(*at)++] & 0x3F);
    }
    return c;
}

static int cjk_create(void *context, const char **arguments, int count, Fts5Tokenizer **out) {
    (void)context;
    (void)arguments;
    (void)count;
    *out = (Fts5Tokenizer *)sqlite3_malloc(1); // stateless; FTS5 wants a non-null handle
    return *out ? SQLITE_OK : SQLITE_NOMEM;
}

static void cjk_delete(Fts5Tokenizer *tokenizer) { sqlite3_free(tokenizer); }

// Emits one run's tokens. Documents: every character at its position, with the bigram starting there colocated, so
// a one-character query and a phrase of bigrams both match. Queries: a lone character as itself, longer runs as
// their bigrams in order (a phrase).
static int emit_run(void *context, int flags, const char *text, const int *starts, int characters,
                    int (*token)(void *, int, const char *, int, int, int)) {
    int query = (flags & FTS5_TOKENIZE_QUERY) != 0;
    int rc = SQLITE_OK;
    for (int i = 0; i < characters && rc == SQLITE_OK; i++) {
        int start = starts[i], end = starts[i + 1];
        int has_bigram = i + 1 < characters;
        if (!query || characters == 1) rc = token(context, 0, text + start, end - start, start, end);
        if (rc == SQLITE_OK && has_bigram) {
            int bigram_end = starts[i + 2];
            rc = token(context, query ? 0 : FTS5_TOKEN_COLOCATED, text + start, bigram_end - start, start,
                       bigram_end);
        }
    }
    return rc;
}

static int cjk_tokenize(Fts5Tokenizer *tokenizer, void *context, int flags, const char *text, int length,
                        int (*token)(void *, int, const char *, int, int, int)) {
    (void)tokenizer;
    const unsigned char *bytes = (const unsigned char *)text;
    // starts[i] is the byte offset of the run's i-th character; starts[count] its end.
    int capacity = 64, count = 0, rc = SQLITE_OK;
    int *starts = sqlite3_malloc64(sizeof(int) * (capacity + 1));
    if (!starts) return SQLITE_NOMEM;
    int at = 0;
    while (at < length && rc == SQLITE_OK) {
        int start = at;
        unsigned int c = next_character(bytes, length, &at);
        if (trove_is_cjk(c)) {
            if (count == capacity) {
                capacity *= 2;
                int *grown = sqlite3_realloc64(starts, sizeof(int) * (capacity + 1));
                if (!grown) {
                    rc = SQLITE_NOMEM;
                    break;
                }
                starts = grown;
            }
            starts[count++] = start;
            starts[count] = at;
        } else if (count > 0) {
            rc = emit_run(context, flags, text, starts, count, token);
            count = 0;
        }
    }
    if (rc == SQLITE_OK && count > 0) rc = emit_run(context, flags, text, starts, count, token);
    sqlite3_free(starts);
    return rc;
}

// MARK: Registration

int trove_fts_register(sqlite3 *db) {
    fts5_api *api = fts5_api_of(db);
    if (!api || api->iVersion < 2) return SQLITE_ERROR;
    int rc = api->xCreateFunction(api, "trove_bm25", NULL, trove_bm25, NULL);
    if (rc == SQLITE_OK) {
        StatsCache *cache = sqlite3_malloc(sizeof(StatsCache));
        if (!cache) return SQLITE_NOMEM;
        memset(cache, 0, sizeof(StatsCache));
        cache->db = db;
        rc = api->xCreateFunction(api, "trove_bm25_top", cache, trove_bm25_top, stats_cache_free);
        if (rc == SQLITE_OK) rc = api->xCreateFunction(api, "trove_bm25_idf", cache, trove_bm25_idf, NULL);
    }
    if (rc != SQLITE_OK) return rc;
    fts5_tokenizer cjk = {cjk_create, cjk_delete, cjk_tokenize};
    return api->xCreateTokenizer(api, "trove_cjk", NULL, &cjk, NULL);
}
