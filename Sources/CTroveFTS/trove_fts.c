// FTS5 extensions registered through fts5_api (https://sqlite.org/fts5.html#extending_fts5). In C because both are
// callbacks FTS5 calls once per row or per token with pointers into its own buffers.
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
    int phrases;
    double average_length; // tokens per row, all columns together
    double *idf;           // one per phrase
} BM25Data;

static void bm25_data_free(void *pointer) {
    BM25Data *data = pointer;
    if (data) sqlite3_free(data->idf);
    sqlite3_free(data);
}

static int count_row(const Fts5ExtensionApi *api, Fts5Context *fts, void *userdata) {
    (void)api;
    (void)fts;
    (*(sqlite3_int64 *)userdata)++;
    return SQLITE_OK;
}

static int bm25_data(const Fts5ExtensionApi *api, Fts5Context *fts, BM25Data **out) {
    BM25Data *data = api->xGetAuxdata(fts, 0);
    if (data) {
        *out = data;
        return SQLITE_OK;
    }
    sqlite3_int64 rows = 0, tokens = 0;
    int rc = api->xRowCount(fts, &rows);
    if (rc == SQLITE_OK) rc = api->xColumnTotalSize(fts, -1, &tokens);
    if (rc != SQLITE_OK) return rc;
    data = sqlite3_malloc(sizeof(BM25Data));
    if (!data) return SQLITE_NOMEM;
    data->phrases = api->xPhraseCount(fts);
    data->average_length = rows > 0 ? (double)tokens / (double)rows : 1.0;
    data->idf = sqlite3_malloc64(sizeof(double) * (data->phrases > 0 ? data->phrases : 1));
    if (!data->idf) {
        sqlite3_free(data);
        return SQLITE_NOMEM;
    }
    for (int phrase = 0; phrase < data->phrases && rc == SQLITE_OK; phrase++) {
        sqlite3_int64 hits = 0;
        rc = api->xQueryPhrase(fts, phrase, &hits, count_row);
        // Robertson-Sparck Jones IDF; a term in over half the rows would score negative, so it gets a sliver
        // instead (as FTS5's bm25() does): matching it is still better than not.
        double idf = log((rows - hits + 0.5) / (hits + 0.5));
        data->idf[phrase] = idf > 1e-6 ? idf : 1e-6;
    }
    if (rc == SQLITE_OK) rc = api->xSetAuxdata(fts, data, bm25_data_free);
    if (rc != SQLITE_OK) {
        bm25_data_free(data);
        return rc;
    }
    *out = data;
    return SQLITE_OK;
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
    int instances = 0, columns = api->xColumnCount(fts);
    if (rc == SQLITE_OK) {
        frequency = sqlite3_malloc64(sizeof(double) * (data->phrases > 0 ? data->phrases : 1));
        if (!frequency) rc = SQLITE_NOMEM;
        else memset(frequency, 0, sizeof(double) * (data->phrases > 0 ? data->phrases : 1));
    }
    if (rc == SQLITE_OK) rc = api->xInstCount(fts, &instances);
    for (int i = 0; rc == SQLITE_OK && i < instances; i++) {
        int phrase, column, offset;
        rc = api->xInst(fts, i, &phrase, &column, &offset);
        if (rc == SQLITE_OK && phrase >= 0 && phrase < data->phrases && column >= 0 && column < columns) {
            double weight = 2 + column < argc ? sqlite3_value_double(argv[2 + column]) : 1.0;
            frequency[phrase] += weight;
        }
    }
    int length = 0;
    if (rc == SQLITE_OK) rc = api->xColumnSize(fts, -1, &length);
    if (rc == SQLITE_OK) {
        double norm = k1 * (1 - b + b * (double)length / data->average_length);
        double score = 0;
        for (int phrase = 0; phrase < data->phrases; phrase++) {
            double f = frequency[phrase];
            if (f > 0) score += data->idf[phrase] * f * (k1 + 1) / (f + norm);
        }
        sqlite3_result_double(context, score);
    } else {
        sqlite3_result_error_code(context, rc);
    }
    sqlite3_free(frequency);
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
    if (rc != SQLITE_OK) return rc;
    fts5_tokenizer cjk = {cjk_create, cjk_delete, cjk_tokenize};
    return api->xCreateTokenizer(api, "trove_cjk", NULL, &cjk, NULL);
}
