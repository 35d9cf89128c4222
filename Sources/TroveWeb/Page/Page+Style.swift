extension Page {
    /// The page's styles: the system's colours, light or dark as the system says.
    static let style = """
        :root { --bg: #fdfdfc; --fg: #1d1d1f; --muted: #6b6b70; --line: #e2e2e6; --accent: #5b3fb0;
          --hit: #fff4c2; --mark: #ffe27a; --panel: #f4f4f6; --warn: #9a4a00; color-scheme: light dark; }
        @media (prefers-color-scheme: dark) {
          :root { --bg: #161618; --fg: #e8e8ea; --muted: #9a9aa2; --line: #2e2e33; --accent: #b39dff;
            --hit: #3d3514; --mark: #6b5a10; --panel: #1f1f23; --warn: #ffb066; }
        }
        * { box-sizing: border-box; }
        body { margin: 0; font: 15px/1.45 system-ui, sans-serif; background: var(--bg); color: var(--fg); }
        .sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
        .top { display: flex; gap: 1rem; align-items: center; padding: .5rem 1rem;
          border-bottom: 1px solid var(--line); }
        .top h1 { font-size: 1.1rem; margin: 0; color: var(--accent); }
        #status { margin: 0 0 0 auto; color: var(--muted); font-size: .85rem; }
        [role=tab] { background: none; border: 0; border-bottom: 2px solid transparent; color: var(--fg);
          padding: .3rem .6rem;
          font: inherit; cursor: pointer; }
        [role=tab][aria-selected=true] { border-color: var(--accent); }
        .layout { display: grid; grid-template-columns: minmax(0, 1fr); gap: 1rem; padding: 1rem; }
        .layout.with-document { grid-template-columns: minmax(0, 1fr) minmax(0, 1.2fr); }
        input, select, textarea, button { font: inherit; color: inherit; background: var(--panel);
          border: 1px solid var(--line); border-radius: 6px; padding: .35rem .5rem; }
        button { cursor: pointer; }
        button:disabled { opacity: .5; cursor: default; }
        :focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
        #search-form { display: flex; flex-wrap: wrap; gap: .5rem; }
        #q { flex: 1 1 20rem; font-size: 1.05rem; }
        #filters { flex-basis: 100%; }
        #filters label { display: inline-flex; gap: .3rem; align-items: center; margin: .3rem .8rem .3rem 0; }
        .hint, .note { color: var(--muted); font-size: .8rem; margin: .3rem 0; }
        .hits { list-style: none; padding: 0; margin: 0; }
        .hits li { padding: .5rem .6rem; border-radius: 6px; cursor: pointer; border: 1px solid transparent; }
        .hits li[aria-selected=true] { border-color: var(--accent); background: var(--panel); }
        .hit-head { display: flex; gap: .6rem; flex-wrap: wrap; align-items: baseline; }
        .location { color: var(--accent); font-weight: 600; font-family: ui-monospace, monospace; font-size: .9rem; }
        .locator { color: var(--accent); font-size: .85rem; }
        .document h2 + .locator { margin-right: auto; }
        .answered-by { color: var(--muted); font-size: .8rem; margin: .2rem 0; }
        .score { color: var(--muted); font-size: .8rem; font-variant-numeric: tabular-nums; }
        .heading { color: var(--muted); }
        .snippet { margin: .2rem 0 0 1rem; font-size: .9rem; white-space: pre-wrap; overflow-wrap: anywhere; }
        mark { background: var(--mark); color: inherit; border-radius: 2px; }
        .document { border: 1px solid var(--line); border-radius: 8px; max-height: calc(100vh - 6rem); overflow: auto;
          position: sticky; top: 1rem; }
        .document header { display: flex; gap: .5rem; align-items: center; padding: .5rem; position: sticky; top: 0;
          background: var(--bg); border-bottom: 1px solid var(--line); }
        .document h2 { font-size: .95rem; margin: 0; font-family: ui-monospace, monospace;
          overflow-wrap: anywhere; }
        .lines { margin: 0; padding: .5rem 0 .5rem 3.5rem; font: 13px/1.5 ui-monospace, monospace; }
        .lines li { white-space: pre-wrap; overflow-wrap: anywhere; padding-left: .5rem; }
        .lines li::marker { color: var(--muted); }
        .lines li.hit { background: var(--hit); }
        .chat-bar { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin-bottom: .5rem; }
        .messages { display: flex; flex-direction: column; gap: .8rem; min-height: 8rem; }
        .turn { padding: .5rem .8rem; border-radius: 8px; background: var(--panel); overflow-wrap: anywhere; }
        .turn.user { align-self: flex-end; max-width: 80%; border: 1px solid var(--line); background: none; }
        .turn pre { background: var(--bg); padding: .5rem; border-radius: 6px; overflow: auto; }
        .turn .sources { font-size: .85rem; color: var(--muted); }
        .turn .sources a, .turn a.cite { color: var(--accent); cursor: pointer; }
        .turn .warning { color: var(--warn); font-size: .85rem; margin: .2rem 0; }
        .ask { display: flex; gap: .5rem; margin-top: .8rem; }
        .ask textarea { flex: 1; resize: vertical; }
        """
}
