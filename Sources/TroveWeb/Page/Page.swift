/// The page `trove web` serves: plain HTML, CSS and JavaScript in the binary, no build step, nothing from elsewhere.
/// The script builds every piece of document text, file name and model output with `textContent`, never as markup.
enum Page {
    /// The page's total size in bytes (stated in GUIDE.md).
    static var size: Int { [html, style, script, icon].reduce(0) { $0 + $1.utf8.count } }

    static let icon = """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">\
        <rect width="16" height="16" rx="3" fill="#6b4fbb"/>\
        <path d="M4 5h8M4 8h8M4 11h5" stroke="#fff" stroke-width="1.6" stroke-linecap="round"/></svg>
        """

    static let html = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <title>Trove</title>
        <link rel="icon" href="/favicon.svg" type="image/svg+xml">
        <link rel="stylesheet" href="/app.css">
        <script src="/app.js" defer></script>
        </head>
        <body>
        <header class="top">
          <h1>Trove</h1>
          <div role="tablist" aria-label="Views">
            <button type="button" role="tab" id="tab-search" aria-selected="true"
              aria-controls="view-search">Search</button>
            <button type="button" role="tab" id="tab-chat" aria-selected="false" aria-controls="view-chat">Chat</button>
          </div>
          <p id="status" role="status" aria-live="polite"></p>
        </header>
        <main class="layout">
          <section id="view-search" role="tabpanel" aria-labelledby="tab-search" class="view">
            <form id="search-form" role="search">
              <label for="q" class="sr-only">Search your documents</label>
              <input id="q" type="search" placeholder="Search your documents (press / )" autocomplete="off"
                aria-describedby="search-help" aria-controls="hits">
              <label for="mode" class="sr-only">Ranking mode</label>
              <select id="mode"><option value="hybrid">hybrid</option><option value="vector">meaning</option>
                <option value="keyword">keywords</option></select>
              <details id="filters"><summary>Filters</summary>
                <label>Path glob <input id="f-path" placeholder="notes/*.md"></label>
                <label>Extensions <input id="f-ext" placeholder="md, txt"></label>
                <label>Since <input id="f-since" placeholder="2w or 2024-05-01"></label>
                <label>Before <input id="f-before" placeholder="2024-06-01"></label>
                <label>Folder <input id="f-root" placeholder="notes"></label>
              </details>
            </form>
            <p id="search-help" class="hint">/ search · ↑ ↓ choose · Enter open · Esc close</p>
            <p id="search-note" class="note" role="status" aria-live="polite"></p>
            <ol id="hits" class="hits" role="listbox" aria-label="Results"></ol>
          </section>
          <section id="view-chat" role="tabpanel" aria-labelledby="tab-chat" class="view" hidden>
            <div class="chat-bar">
              <label>Session <select id="sessions" aria-label="Chat sessions"></select></label>
              <button type="button" id="new-session">New</button>
              <label class="sr-only" for="session-name">Session name</label>
              <input id="session-name" aria-label="Session name">
              <button type="button" id="rename-session">Rename</button>
              <button type="button" id="delete-session">Delete</button>
              <label>Model <select id="model" aria-label="Chat model"></select></label>
            </div>
            <div id="messages" class="messages" aria-label="Conversation" aria-live="polite"></div>
            <form id="ask-form" class="ask">
              <label for="question" class="sr-only">Your question</label>
              <textarea id="question" rows="2"
                placeholder="Ask your documents (Enter sends, Shift+Enter new line)"></textarea>
              <button type="submit" id="ask">Ask</button>
              <button type="button" id="stop" disabled>Stop</button>
            </form>
          </section>
          <article id="document" class="document" aria-label="Document" hidden>
            <header>
              <h2 id="doc-title"></h2>
              <span id="doc-locator" class="locator" aria-label="Page"></span>
              <button type="button" id="copy-location">Copy path:line</button>
              <button type="button" id="close-document" aria-label="Close the document">Close</button>
            </header>
            <ol id="doc-lines" class="lines"></ol>
          </article>
        </main>
        </body>
        </html>

        """
}
