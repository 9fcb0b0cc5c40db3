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
        select { font: inherit; min-height: 48px; width: 100%; }
        fieldset { margin-top: 1rem; border: 1px solid #8888; border-radius: 0.5rem; }
        .days { display: flex; flex-wrap: wrap; gap: 0 1rem; }
        .days[hidden] { display: none; }
        #written, ul.list { list-style: none; padding: 0; }
        #written li, ul.list > li { padding: 0.5rem 0; border-bottom: 1px solid #8888; }
        .row { display: flex; gap: 0.5rem; align-items: center; }
        .row form { flex: 1; margin: 0; }
        a.button { flex: 1; display: inline-flex; justify-content: center; align-items: center; min-height: 48px; margin-top: 0.5rem;
            border-radius: 0.5rem; border: 2px solid #1d3557; color: inherit; text-decoration: none; }
        main button.quiet { background: none; color: inherit; }
        .actions { display: grid; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); gap: 0 0.75rem; }
        form.inline { display: inline; }
        li, td, dd { overflow-wrap: anywhere; }
        #parts li { margin-bottom: 0.4rem; }
        #parts li.failed b { color: #9d0208; }
        .problem { color: #9d0208; font-weight: bold; white-space: pre-line; }
        .well { color: #2d6a4f; }
        .notice { padding: 0.5rem; border-left: 0.4rem solid #2d6a4f; }
        table { border-collapse: collapse; width: 100%; }
        th, td { text-align: left; vertical-align: top; padding: 0.4rem; border-bottom: 1px solid #8888; }
        tr.missed td, tr.not-acknowledged td { color: #9d0208; }
        @media (prefers-color-scheme: dark) { .problem, tr.missed td, tr.not-acknowledged td { color: #ff8fa3; }
            .well { color: #95d5b2; } }
        """

    /// Records the carer's voice: MediaRecorder where the browser allows it (HTTPS, or the
    /// box itself), else a recording chosen on the phone; either is decoded by the browser,
    /// mixed to one channel at 16 kHz, written as WAV and sent to the box, which judges it as it
    /// plays it and keeps it with the reminder when the form is sent.
    static let recorder = """
        (function () {
          const repetition = document.getElementById("repetition"), days = document.querySelector(".days");
          if (repetition && days) {
            const showDays = function () { days.hidden = repetition.value !== "weekly"; };
            repetition.addEventListener("change", showDays);
            showDays();
          }
          const upload = document.getElementById("upload");
          if (upload) {
            upload.addEventListener("submit", async function (event) {
              event.preventDefault();
              const file = document.getElementById("calendarfile").files[0], said = document.getElementById("uploadstate");
              if (!file) return;
              said.className = "";
              said.textContent = upload.dataset.working;
              try {
                const answer = await fetch("/calendars/upload?name=" + encodeURIComponent(file.name), { method: "POST", body: file,
                  headers: { "Content-Type": "text/calendar", "X-Marquee-Token": upload.dataset.token } });
                const result = answer.status === 413 ? { error: "413" } : await answer.json();
                if (!answer.ok) throw new Error(result.error);
                location.reload();
              } catch (error) {
                said.textContent = error.message || String(error);
                said.className = "problem";
              }
            });
          }
          const panel = document.getElementById("voice");
          if (!panel) return;
          const record = document.getElementById("record"), stop = document.getElementById("stop");
          const pick = document.getElementById("voicefile"), state = document.getElementById("voicestate");
          const field = document.getElementById("voicefield");
          const rate = 16000, longest = 60;
          function wav(samples) {
            const view = new DataView(new ArrayBuffer(44 + samples.length * 2));
            const text = function (at, word) { for (let i = 0; i < word.length; i++) view.setUint8(at + i, word.charCodeAt(i)); };
            text(0, "RIFF"); view.setUint32(4, 36 + samples.length * 2, true); text(8, "WAVEfmt ");
            view.setUint32(16, 16, true); view.setUint16(20, 1, true); view.setUint16(22, 1, true);
            view.setUint32(24, rate, true); view.setUint32(28, rate * 2, true); view.setUint16(32, 2, true);
            view.setUint16(34, 16, true); text(36, "data"); view.setUint32(40, samples.length * 2, true);
            for (let i = 0; i < samples.length; i++) {
              const s = Math.max(-1, Math.min(1, samples[i]));
              view.setInt16(44 + i * 2, s < 0 ? s * 0x8000 : s * 0x7fff, true);
            }
            return new Blob([view.buffer], { type: "audio/wav" });
          }
          async function send(blob) {
            state.textContent = panel.dataset.working;
            try {
              const Context = window.AudioContext || window.webkitAudioContext;
              const decoded = await new Context().decodeAudioData(await blob.arrayBuffer());
              const length = Math.ceil(Math.min(decoded.duration, longest) * rate);
              const offline = new OfflineAudioContext(1, length, rate);
              const source = offline.createBufferSource();
              source.buffer = decoded;
              source.connect(offline.destination);
              source.start();
              const mixed = await offline.startRendering();
              const answer = await fetch("/recording", { method: "POST", body: wav(mixed.getChannelData(0)),
                headers: { "Content-Type": "audio/wav", "X-Marquee-Token": panel.dataset.token } });
              const said = await answer.json();
              if (!answer.ok) throw new Error(said.error);
              field.value = "new";
              state.textContent = panel.dataset.recorded.replace("{s}", said.seconds.toFixed(1));
              document.body.dataset.recorded = String(said.seconds);
            } catch (error) {
              state.textContent = error.message || String(error);
              state.className = "problem";
            }
          }
          pick.addEventListener("change", function () { if (pick.files[0]) send(pick.files[0]); });
          if (!window.isSecureContext || !navigator.mediaDevices || !window.MediaRecorder) {
            state.textContent = panel.dataset.norecorder;
            return;
          }
          record.hidden = false;
          let recorder = null, timer = null;
          record.addEventListener("click", async function () {
            try {
              const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
              const chunks = [];
              recorder = new MediaRecorder(stream);
              recorder.addEventListener("dataavailable", function (event) { chunks.push(event.data); });
              recorder.addEventListener("stop", function () {
                clearTimeout(timer);
                stream.getTracks().forEach(function (track) { track.stop(); });
                record.hidden = false;
                stop.hidden = true;
                send(new Blob(chunks, { type: recorder.mimeType }));
              });
              recorder.start();
              timer = setTimeout(function () { recorder.stop(); }, longest * 1000);
              record.hidden = true;
              stop.hidden = false;
            } catch (error) {
              state.textContent = error.message || String(error);
            }
          });
          stop.addEventListener("click", function () { if (recorder && recorder.state === "recording") recorder.stop(); });
        })();
        """

    /// Follows the box: each change of what "Now" shows arrives as a server-sent event and is
    /// put in place (a new picture of the glass loaded when it changed). Without it the page
    /// still works; it only does not follow.
    static let javascript = """
        "use strict";
        (function () {
          \(recorder)
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
