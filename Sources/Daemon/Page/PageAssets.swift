/// The page's style and script, shipped in the binary: no CDN, no build step, nothing fetched
/// from elsewhere (the Content-Security-Policy allows only these).
enum PageAssets {
    /// Phone first: one column, large targets (48 px), text that grows with the browser's zoom.
    static let css = """
        :root { color-scheme: light dark; font-family: system-ui, sans-serif; font-size: 112.5%; line-height: 1.5; }
        body { margin: 0; }
        main { max-width: 40rem; margin: 0 auto; padding: 0.75rem; }
        nav { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem; padding: 0.25rem 0.75rem; background: #1d3557; }
        nav form { margin: 0; }
        nav a, nav button { display: inline-flex; align-items: center; color: #fff; background: none; border: 0; font: inherit;
            padding: 0 0.5rem; min-height: 48px; text-decoration: underline; cursor: pointer; }
        img#glass { display: block; width: 100%; height: auto; border-radius: 0.5rem; background: #000; }
        #orientation { font-weight: bold; }
        #states { list-style: none; padding: 0.25rem 0.75rem; border-left: 0.4rem solid #1d3557; }
        #states:empty { display: none; }
        label { display: block; margin-top: 0.75rem; }
        input:not([type=checkbox]), button { font: inherit; min-height: 48px; box-sizing: border-box; }
        input:not([type=checkbox]) { width: 100%; padding: 0.5rem; }
        label.check { display: flex; align-items: center; gap: 0.5rem; min-height: 48px; }
        label.check input { width: 1.5rem; height: 1.5rem; }
        main button { width: 100%; margin-top: 0.5rem; padding: 0.5rem 1rem; border-radius: 0.5rem;
            border: 2px solid #1d3557; background: #1d3557; color: #fff; }
        .actions { display: grid; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); gap: 0 0.75rem; }
        form.inline { display: inline; }
        li, td, dd { overflow-wrap: anywhere; }
        #parts li { margin-bottom: 0.4rem; }
        #parts li.failed b { color: #9d0208; }
        .problem { color: #9d0208; font-weight: bold; }
        .well { color: #2d6a4f; }
        .notice { padding: 0.5rem; border-left: 0.4rem solid #2d6a4f; }
        table { border-collapse: collapse; width: 100%; }
        th, td { text-align: left; vertical-align: top; padding: 0.4rem; border-bottom: 1px solid #8888; }
        tr.missed td, tr.not-acknowledged td { color: #9d0208; }
        @media (prefers-color-scheme: dark) { .problem, tr.missed td, tr.not-acknowledged td { color: #ff8fa3; }
            .well { color: #95d5b2; } }
        """

    /// Follows the box: each change of what "Now" shows arrives as a server-sent event and is
    /// put in place (a new picture of the glass loaded when it changed). Without it the page
    /// still works; it only does not follow.
    static let javascript = """
        "use strict";
        (function () {
          const glass = document.getElementById("glass");
          const first = document.getElementById("now");
          if (!glass || !first || !window.EventSource) return;
          let shown = JSON.parse(first.textContent);
          function fill(id, items) {
            const list = document.getElementById(id);
            list.replaceChildren(...items.map(function (text) {
              const item = document.createElement("li");
              item.textContent = text;
              return item;
            }));
            return list;
          }
          const events = new EventSource("/events");
          events.addEventListener("now", function (event) {
            const now = JSON.parse(event.data);
            if (now.picture !== shown.picture) glass.src = "/picture.png?n=" + now.picture;
            document.getElementById("orientation").textContent = now.orientation || "";
            const showing = document.getElementById("showing");
            fill("showing", now.showing.length ? now.showing : [showing.dataset.nothing]);
            fill("states", now.states);
            const problems = document.getElementById("problems");
            const list = fill("problems", now.problems.length ? now.problems : [problems.dataset.well]);
            for (const item of list.children) item.className = now.problems.length ? "problem" : "well";
            shown = now;
            document.body.dataset.changes = String(now.changes);
          });
        })();
        """
}
