#!/usr/bin/env python3
"""Makes the PDFs that Tests/TroveExtractTests/Fixtures/pdf commits (SOURCES.md there says which file is what).

Needs reportlab (PyPI; it brings Pillow) and qpdf (Debian). Run from the repository root:
    python3 -m venv /tmp/pdfs && /tmp/pdfs/bin/pip install reportlab && /tmp/pdfs/bin/python Scripts/make-test-pdfs.py
The output is deterministic apart from the encrypted file's random salt (invariant=1 fixes reportlab's dates and ids).
"""
import subprocess
import sys
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont
from reportlab.lib.pagesizes import A4, A6
from reportlab.lib.utils import ImageReader
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen import canvas

OUT = Path("Tests/TroveExtractTests/Fixtures/pdf")
WIDTH, HEIGHT = A4


def new(name):
    return canvas.Canvas(str(OUT / name), pagesize=A4, invariant=1)


def write_lines(page, lines, x=72, top=HEIGHT - 72, size=12, font="Helvetica"):
    page.setFont(font, size)
    for index, line in enumerate(lines):
        page.drawString(x, top - index * size * 1.5, line)


def pages():
    """Four pages with known text (page 3 is blank), an outline of two levels, a line that starts with '#'."""
    pdf = new("pages.pdf")
    contents = [
        ["Getting started", "The first page talks about apricots and installation.",
         "# this line starts with a hash and is no heading"],
        ["Configuration", "The second page talks about bananas and settings.", "Advanced options",
         "Nested settings live here with cherries."],
        [],
        ["Troubleshooting", "The fourth page talks about dates and errors."],
    ]
    outline = {1: [("Getting started", 0)], 2: [("Configuration", 0), ("Advanced options", 1)],
               4: [("Troubleshooting", 0)]}
    for number, lines in enumerate(contents, start=1):
        for title, level in outline.get(number, []):
            key = f"{number}-{title}"
            pdf.bookmarkPage(key)
            pdf.addOutlineEntry(title, key, level=level)
        write_lines(pdf, lines)
        pdf.showPage()
    pdf.save()


def two_columns():
    """One page of two columns, 30 numbered sentences each: reading order keeps column 1 before column 2."""
    pdf = new("two-columns.pdf")
    for column, x in enumerate([60, 320]):
        lines = [f"Sentence {column * 30 + row + 1:02d} of the {'left' if column == 0 else 'right'} column."
                 for row in range(30)]
        write_lines(pdf, lines, x=x, size=10)
    pdf.showPage()
    pdf.save()


def image_only():
    """Two A6 pages that are only pictures of text, as a scanner makes them: no text layer (A6: OCR at 300 dpi
    takes a quarter of an A4 page's time in the tests)."""
    pdf = canvas.Canvas(str(OUT / "image-only.pdf"), pagesize=A6, invariant=1)
    font = ImageFont.load_default(size=36)
    for number in (1, 2):
        picture = Image.new("L", (1240, 1754), 255)
        draw = ImageDraw.Draw(picture)
        for row in range(20):
            draw.text((100, 100 + row * 70), f"Scanned page {number}, line {row + 1}: nothing to select.", fill=0,
                      font=font)
        pdf.drawImage(ImageReader(picture), 0, 0, width=A6[0], height=A6[1])
        pdf.showPage()
    pdf.save()


def little_text():
    """Six pages of pictures with only a page number as text: a near-empty text layer."""
    pdf = new("little-text.pdf")
    for number in range(1, 7):
        picture = Image.new("L", (620, 877), 200)
        pdf.drawImage(ImageReader(picture), 0, 0, width=WIDTH, height=HEIGHT)
        write_lines(pdf, [str(number)], x=WIDTH / 2, top=40)
        pdf.showPage()
    pdf.save()


def cjk():
    """Chinese and Japanese in non-embedded CID fonts: pdftotext needs poppler-data for these."""
    pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    pdfmetrics.registerFont(UnicodeCIDFont("HeiseiMin-W3"))
    pdf = new("cjk.pdf")
    write_lines(pdf, ["全文检索把文件变成可以搜索的段落。"], font="STSong-Light", size=14)
    write_lines(pdf, ["日本語の文書も検索できます。"], font="HeiseiMin-W3", size=14, top=HEIGHT - 120)
    pdf.showPage()
    pdf.save()


def encrypted():
    """pages.pdf behind a user password (AES-256, qpdf): nothing can be read without it."""
    subprocess.run(["qpdf", "--encrypt", "secret", "owner", "256", "--", str(OUT / "pages.pdf"),
                    str(OUT / "encrypted.pdf")], check=True)


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    for make in (pages, two_columns, image_only, little_text, cjk, encrypted):
        make()
    print("made", ", ".join(sorted(p.name for p in OUT.glob("*.pdf"))), file=sys.stderr)
