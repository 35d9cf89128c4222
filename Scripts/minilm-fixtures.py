#!/usr/bin/env python3
"""Regenerates Tests/TroveMiniLMTests/Fixtures/ from the reference tokenizer and numpy model.

  ../shared/tools/ollama-standin/.venv/bin/python Scripts/minilm-fixtures.py

tokens.json: tricky strings and the token ids HF `tokenizers` gives them (with [CLS]/[SEP], truncated to 512 the
way Ollama does: the first 511 and the closing [SEP]). sky.json: the normalised vector of "why is the sky blue?".
"""
import json, sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
STANDIN = HERE.parent.parent.parent / "shared" / "tools" / "ollama-standin"
sys.path.insert(0, str(Path("/work/shared/tools/ollama-standin")))
sys.path.insert(0, str(STANDIN))
from minilm import MiniLM  # noqa: E402

STRINGS = [
    "why is the sky blue?",
    "Hello, World! This is a TEST.",
    "Café déjà vu — naïve façade, Ångström, Øresund, crème brûlée, São Paulo, Zürich",
    "İstanbul ΣΊΣΥΦΟΣ Ελληνικά ὀδυσσεύς straße ǅemal ﬁne ｆｕｌｌｗｉｄｔｈ",
    "東京タワーは日本の電波塔です。北京大学 𠀋𡈽 안녕하세요 세계",
    "I ❤️ 🍕 and 👩‍👩‍👧 family 🇫🇷 flags 👍🏽 ok",
    "https://example.com/path/to/page?query=1&lang=en#section user@mail.example.org",
    "func f(x: Int) -> [String] { return x.map { \"\\($0)\" } } // a_b->c::d <=> $HOME ~/x `tick` ^caret |pipe|",
    "supercalifragilisticexpialidocious pneumonoultramicroscopicsilicovolcanoconiosis " + "a" * 120 + " " + "xyz" * 40,
    "tabs\tand\nnewlines\r\nand\u00a0nbsp\u2003em-space zero\u200bwidth soft\u00adhyphen ctrl\x07bell nul\x00x repl\ufffdchar",
    "3.14159e-10 1,000,000 $42.50 50% #hashtag @mention «quotes» „german“ ‘single’ … ¿qué? ¡sí!",
    "combining e\u0301 n\u0303 a\u030a vs é ñ å; Hangul jamo \u1100\u1161; Thai ภาษาไทย; Arabic العربية; Hindi हिन्दी",
    "",
    "   ",
    "word " * 600,
]


def main():
    m = MiniLM(threads=1)
    out = HERE.parent / "Tests" / "TroveMiniLMTests" / "Fixtures"
    cases = [{"text": s, "ids": m.truncate_ids(m.tokenize([s])[0], 512)} for s in STRINGS]
    (out / "tokens.json").write_text("[\n" + ",\n".join(json.dumps(c, ensure_ascii=False) for c in cases) + "\n]\n")
    v = m.embed(["why is the sky blue?"])[0]
    (out / "sky.json").write_text(json.dumps({"text": "why is the sky blue?", "vector": [float(x) for x in v]}) + "\n")
    print(f"{len(cases)} token cases; sky[:5] = {[round(float(x), 6) for x in v[:5]]}")


if __name__ == "__main__":
    main()
