#!/usr/bin/env python3
"""Drives `trove web`'s page in a real Chromium (headless, through chromedriver and Selenium's WebDriver client).

    web_checks.py URL ARTIFACTS_FOLDER [--bench N]

Runs the page's user journey against a server whose chat models are the fake Ollama's (each token ~150 ms apart),
with a real PDF indexed and a watch pass in progress: the watch's progress in the status, search as you type, open a
passage with the keyboard, a PDF's hit with its page shown in the list and the document, a hostile note shown as
text (its script never runs), ask and see the tokens arrive one by one, follow a citation, switch the chat model,
Stop an answer, resume sessions made with `trove chat` (one citing a PDF's page), and no console errors. Saves a screenshot of each step in ARTIFACTS_FOLDER and prints one JSON object of what it saw; exits
1 with the reason on stderr at the first failed check. With --bench N it instead measures N keystroke-to-rendered-
hits round trips and the token-to-screen delay, and prints them.
"""
import json
import statistics
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait


def fail(message):
    print("web_checks: " + message, file=sys.stderr)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900",
                     "--disable-dev-shm-usage", "--no-first-run", "--disable-extensions"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


class Journey:
    def __init__(self, driver, folder):
        self.driver = driver
        self.folder = folder
        self.shots = []
        self.wait = WebDriverWait(driver, 20, poll_frequency=0.02)

    def shot(self, name):
        path = f"{self.folder}/{len(self.shots) + 1:02d}-{name}.png"
        self.driver.save_screenshot(path)
        self.shots.append(path)

    def find(self, selector):
        return self.driver.find_element(By.CSS_SELECTOR, selector)

    def all(self, selector):
        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    def pwned(self):
        return self.driver.execute_script("return window.__pwned === undefined ? null : window.__pwned;")

    def search(self, text):
        box = self.find("#q")
        box.clear()
        box.send_keys(text)
        # Hits for a prefix may render first on a slow machine: wait for the ones that answer the whole text.
        self.wait.until(
            lambda d: self.find("#hits").get_attribute("data-query") == text.strip() and self.all("#hits li"))
        return self.all("#hits li")


def journey(url, folder):
    driver = browser()
    seen = {}
    try:
        page = Journey(driver, folder)
        driver.get(url)
        page.wait.until(lambda d: "documents" in page.find("#status").text)
        check("token=" not in driver.current_url, "the token stays in the address bar")
        # The caller recorded a watch pass in progress (2 of 5 files): the status says so.
        check("indexing 2/5 files" in page.find("#status").text, "the watch's progress: " + page.find("#status").text)
        page.shot("loaded")

        # Search as you type: hits with path:lines, heading, marked words, scores.
        hits = page.search("bastion ssh")
        first = hits[0]
        check("ssh.md:" in first.find_element(By.CSS_SELECTOR, ".location").text, "the first hit is ssh.md")
        check(first.find_elements(By.CSS_SELECTOR, "mark"), "the query's words are marked")
        check("score" in first.find_element(By.CSS_SELECTOR, ".score").text, "scores are shown")
        seen["search_hits"] = len(hits)
        page.shot("search")

        # Keyboard: ↓ chooses the first hit, Enter opens it in its document, lines highlighted and in view.
        page.find("#q").send_keys(Keys.ARROW_DOWN, Keys.ENTER)
        page.wait.until(lambda d: not page.find("#document").get_attribute("hidden"))
        page.wait.until(lambda d: page.all("#doc-lines li.hit"))
        highlighted = page.all("#doc-lines li.hit")
        check(driver.execute_script(
            "const r = arguments[0].getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight;",
            highlighted[0]), "the passage is scrolled into view")
        seen["highlighted_lines"] = len(highlighted)
        page.shot("document")
        driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
        page.wait.until(lambda d: page.find("#document").get_attribute("hidden"))

        # A passage of a real PDF: its page after path:lines, as `trove search` prints it, and in the document view.
        hits = page.search("shared MIME info database glob patterns")
        paged = [hit for hit in hits if "mime-spec.pdf:" in hit.text]
        check(paged, "the PDF is found")
        label = paged[0].find_element(By.CSS_SELECTOR, ".locator").text
        check(label.startswith("p."), f"the hit names its page ({label!r})")
        location = paged[0].find_element(By.CSS_SELECTOR, ".location").text
        seen["pdf_hit"] = location + " " + label
        page.shot("pdf-hit")
        paged[0].click()
        page.wait.until(lambda d: "mime-spec.pdf" in page.find("#doc-title").text and page.all("#doc-lines li.hit"))
        check(page.find("#doc-locator").text == label, "the document names the hit's page")
        first_line = int(page.all("#doc-lines li.hit")[0].get_attribute("value"))
        start = int(location.rsplit(":", 1)[1].split("-")[0])
        check(first_line == start, f"the hit's lines are highlighted (from {first_line}, the hit's {start})")
        page.find("#copy-location").click()
        page.wait.until(lambda d: page.find("#copy-location").text != "Copy path:line")
        copied = page.find("#copy-location").text
        # Headless Chromium may refuse the clipboard: the page then shows what it would have copied.
        check(copied == "Copied" or copied.endswith(f"mime-spec.pdf:{first_line}"), f"Copy path:line ({copied!r})")
        page.shot("pdf-page")
        page.find("#close-document").click()

        # A hostile note: its markup is shown as text, its script never runs.
        hits = page.search("gardening tips daily")
        hostile = [hit for hit in hits if "hostile.md" in hit.text]
        check(hostile, "the hostile note is found")
        check("<script>" in hostile[0].text or "<img" in hostile[0].text, "its markup is shown as text")
        hostile[0].click()
        page.wait.until(lambda d: "onerror" in page.find("#doc-lines").text)
        check(not page.all("#doc-lines img, #hits img, #doc-lines script, #hits script"), "no element from the note")
        time.sleep(0.3)
        check(page.pwned() is None, f"the hostile note's script ran ({page.pwned()})")
        page.shot("hostile-as-text")
        page.find("#close-document").click()

        # Chat: tokens arrive one by one, then the sources; a citation opens its passage.
        page.find("#tab-chat").click()
        page.wait.until(lambda d: page.all("#model option"))
        driver.execute_script(
            "window.__tokens = []; document.addEventListener('trove:token', () => window.__tokens.push(performance.now()));")
        question = page.find("#question")
        question.send_keys("how do I ssh through the bastion?", Keys.ENTER)
        page.wait.until(lambda d: driver.execute_script("return window.__tokens.length") >= 2)
        partial = page.all(".turn.assistant")[-1].text
        page.shot("streaming")
        page.wait.until(lambda d: page.all(".turn.assistant[data-done=true]"))
        times = driver.execute_script("return window.__tokens")
        check(len(times) >= 5, f"tokens arrive one by one (saw {len(times)})")
        check(times[-1] - times[0] > 300, f"tokens arrive over time, not at the end ({times[-1] - times[0]:.0f} ms)")
        answer = page.all(".turn.assistant")[-1]
        check(len(partial) < len(answer.text), "the answer grew as it streamed")
        check("Sources:" in answer.text, "the sources follow the answer")
        seen["tokens"] = len(times)
        seen["token_span_ms"] = round(times[-1] - times[0])
        page.shot("answer")
        citation = answer.find_element(By.CSS_SELECTOR, "a.cite")
        citation.click()
        page.wait.until(lambda d: not page.find("#document").get_attribute("hidden"))
        page.wait.until(lambda d: "ssh.md" in page.find("#doc-title").text)
        check(page.all("#doc-lines li.hit"), "the cited passage is highlighted")
        page.shot("citation")
        page.find("#close-document").click()
        check("Answered by llama3.2:latest (ollama)" in answer.text, "the default model answered: " + answer.text)

        # Switch the model: the picker lists each server's models; the next answer is the chosen one's.
        groups = [g.get_attribute("label") for g in page.all("#model optgroup")]
        check("ollama" in groups, f"the picker groups models by server ({groups})")
        seen["model_groups"] = groups
        driver.execute_script(
            "const m = document.getElementById('model'); m.value = 'ollama:qwen2.5:latest';"
            "m.dispatchEvent(new Event('change'));")
        check(page.find("#model").get_attribute("value") == "ollama:qwen2.5:latest", "qwen2.5 is offered")
        page.find("#question").send_keys("which notes mention the bastion?", Keys.ENTER)
        page.wait.until(lambda d: len(page.all(".turn.assistant[data-done=true]")) >= 2)
        switched = page.all(".turn.assistant")[-1].text
        check("Answered by qwen2.5:latest (ollama)" in switched, "the chosen model answered: " + switched)
        page.shot("model-switched")

        # Stop: the answer stops in the page (and on the server: the caller checks the stored turn).
        driver.execute_script("window.__tokens = [];")
        page.find("#question").send_keys("what about the garden?", Keys.ENTER)
        page.wait.until(lambda d: driver.execute_script("return window.__tokens.length") >= 1)
        page.find("#stop").click()
        page.wait.until(lambda d: page.all(".turn.assistant[data-stopped=true]"))
        stopped_at = len(driver.execute_script("return window.__tokens"))
        time.sleep(0.8)
        check(len(driver.execute_script("return window.__tokens")) == stopped_at, "no token after Stop")
        page.shot("stopped")

        # Resume the session `trove chat --session from-cli` made.
        page.wait.until(lambda d: "from-cli" in [o.get_attribute("value") for o in page.all("#sessions option")])
        driver.execute_script(
            "const s = document.getElementById('sessions'); s.value = 'from-cli';"
            "s.dispatchEvent(new Event('change'));")
        page.wait.until(lambda d: "how do I connect through the bastion host with ssh?" in page.find("#messages").text)
        check(page.all("#messages .turn.assistant"), "the stored answer is shown")
        seen["resumed_turns"] = len(page.all("#messages .turn"))
        page.shot("resumed")

        # A stored session whose source is a PDF's page: the source keeps its page and opens its passage.
        driver.execute_script(
            "const s = document.getElementById('sessions'); s.value = 'pdf-cli';"
            "s.dispatchEvent(new Event('change'));")
        page.wait.until(lambda d: "glob patterns" in page.find("#messages").text)
        sources = page.all("#messages ul.sources a")
        check(sources and "mime-spec.pdf:" in sources[0].text and " p." in sources[0].text,
              "the stored PDF source shows its page: " + page.find("#messages").text)
        sources[0].click()
        page.wait.until(lambda d: "mime-spec.pdf" in page.find("#doc-title").text and page.all("#doc-lines li.hit"))
        check(page.find("#doc-locator").text.startswith("p."), "the document names the source's page")
        page.find("#close-document").click()

        check(page.pwned() is None, "no script of a document ran")
        errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
        check(not errors, "console errors: " + json.dumps(errors))
        seen["screenshots"] = page.shots
        return seen
    finally:
        driver.quit()


def bench(url, rounds):
    """Keystroke to rendered hits, and a token's receipt by the server to its paint, measured in the page."""
    driver = browser()
    try:
        page = Journey(driver, "")
        driver.get(url)
        page.wait.until(lambda d: "documents" in page.find("#status").text)
        queries = ["rotate the key", "who gets paged at night", "basil drooping", "ssh bastion", "deploy rollback",
                   "quarterly planning", "tax return", "kitchen herbs", "incident review", "backup restore"]
        # Warm: the first searches load the vectors and the model.
        for query in queries[:3]:
            page.search(query)
        samples = []
        for i in range(rounds):
            query = queries[i % len(queries)] + (" " * (i // len(queries)))
            elapsed = driver.execute_async_script("""
                const [text, done] = arguments;
                const box = document.getElementById('q');
                box.value = text.slice(0, -1);
                const start = performance.now();
                document.addEventListener('trove:hits', () => requestAnimationFrame(() => done(performance.now() - start)),
                    { once: true });
                box.value = text;
                box.dispatchEvent(new Event('input'));
            """, query + "x")
            samples.append(elapsed)
        result = {"rounds": rounds, "keystroke_to_hits_ms": {
            "p50": round(statistics.median(samples), 1), "p90": round(sorted(samples)[int(len(samples) * 0.9)], 1),
            "min": round(min(samples), 1)}}
        page.find("#tab-chat").click()
        page.wait.until(lambda d: page.all("#model option"))
        # From the server receiving each token from the model (its received_ms) to the frame that shows it.
        driver.execute_script("""
            window.__paint = [];
            document.addEventListener('trove:token', (event) => {
                const received = event.detail.received_ms;
                requestAnimationFrame(() => window.__paint.push(performance.timeOrigin + performance.now() - received));
            });""")
        page.find("#question").send_keys("how do I ssh through the bastion?", Keys.ENTER)
        page.wait.until(lambda d: page.all(".turn.assistant[data-done=true]"))
        paint = driver.execute_script("return window.__paint")
        result["token_to_screen_ms"] = {"tokens": len(paint), "p50": round(statistics.median(paint), 1),
                                        "max": round(max(paint), 1)}
        return result
    finally:
        driver.quit()


def main():
    if len(sys.argv) < 3:
        fail("usage: web_checks.py URL ARTIFACTS_FOLDER [--bench N]")
    url, folder = sys.argv[1], sys.argv[2]
    if "--bench" in sys.argv:
        print(json.dumps(bench(url, int(sys.argv[sys.argv.index("--bench") + 1]))))
    else:
        print(json.dumps(journey(url, folder)))


if __name__ == "__main__":
    main()
