/**
 * The playground page's HTML and style sheet, shipped inside the package (no
 * network: no CDN, font or script from elsewhere).
 *
 * @module
 */

import { operationIds } from '../../../core/routes.js';

/** The operation ids the next-calls fault offers. */
const OPERATION_OPTIONS = operationIds.map((id) => `<option value="${id}"></option>`).join('');

/** The page. */
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Community Chat playground</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/_playground/app.css">
<script type="module" src="/_playground/app.js"></script>
</head>
<body>
<a class="skip" href="#composer-input">Skip to the composer</a>
<header class="top">
  <h1>Community Chat <span>playground</span></h1>
  <p id="bot-status" class="pill off" role="status">Bot: waiting for a connection</p>
  <label class="act-as">Act as <select id="user-select"></select></label>
</header>
<div class="layout">
  <nav id="nav" aria-label="Communities and channels"></nav>
  <main>
    <div class="channel-head"><h2 id="channel-title">Channel</h2><p id="channel-sub" class="muted"></p></div>
    <section id="activity" class="activity" aria-label="Channel activity" hidden></section>
    <div id="messages" class="messages" role="log" aria-live="polite" aria-label="Messages" tabindex="0"><ol id="message-list"></ol></div>
    <form id="composer" class="composer" autocomplete="off">
      <label for="composer-input" class="sr">Message: type / for slash commands</label>
      <div class="combo">
        <ul id="suggestions" role="listbox" aria-label="Suggestions" hidden></ul>
        <input id="composer-input" type="text" role="combobox" aria-autocomplete="list" aria-expanded="false" aria-controls="suggestions" aria-describedby="composer-hint" placeholder="Type / for commands, e.g. /quiz topic:space" spellcheck="false">
      </div>
      <button type="submit" class="primary">Send</button>
      <p id="composer-hint" class="hint" aria-live="polite">Type / to list the bot's commands. Arrow keys move, Enter picks, Escape closes.</p>
    </form>
  </main>
  <aside class="side" aria-label="Application, faults and logs">
    <section aria-labelledby="faults-title">
      <h2 id="faults-title">Faults</h2>
      <form id="faults" class="faults">
        <label>Latency (ms) <input id="latency" type="number" min="0" max="60000" step="50" inputmode="numeric"></label>
        <label>Error rate (%) <input id="error-rate" type="number" min="0" max="100" step="5" inputmode="numeric"></label>
        <label>Global limit (req/s) <input id="global-limit" type="number" min="1" step="1" inputmode="numeric" placeholder="none" aria-describedby="global-limit-help"></label>
        <span id="global-limit-help" class="sr">Requests per second across all routes; leave empty for no limit.</span>
        <button type="submit">Apply the faults</button>
      </form>
      <form id="next-fault" class="faults" aria-label="Fault the next calls">
        <label>Operation <input id="fault-operation" list="operations" placeholder="any" autocomplete="off"></label>
        <label>Answer <select id="fault-status" aria-label="Answer"><option>503</option><option>500</option><option>429</option><option>404</option><option>403</option><option>401</option><option value="reset">reset</option></select></label>
        <label>Next calls <input id="fault-times" type="number" min="1" max="1000" step="1" value="1" inputmode="numeric"></label>
        <datalist id="operations">${OPERATION_OPTIONS}</datalist>
        <button type="submit">Fault the next calls</button>
      </form>
      <div class="row">
        <button id="drop" type="button">Drop the Gateway connections</button>
        <button id="advance" type="button">Advance the clock 15 min</button>
      </div>
      <p id="clock" class="muted"></p>
    </section>
    <section aria-labelledby="commands-title"><h2 id="commands-title">Commands</h2><ul id="commands" class="plain"></ul></section>
    <section aria-labelledby="webhooks-title"><h2 id="webhooks-title">Webhooks</h2><ul id="webhooks" class="plain"></ul></section>
    <section aria-labelledby="deliveries-title"><h2 id="deliveries-title">Deliveries</h2><ul id="deliveries" class="plain"></ul></section>
    <section aria-labelledby="log-title">
      <h2 id="log-title">Live log</h2>
      <fieldset class="row"><legend class="sr">Show</legend>
        <label><input id="show-rest" type="checkbox" checked> REST</label>
        <label><input id="show-gateway" type="checkbox" checked> Gateway</label>
        <label><input id="show-heartbeats" type="checkbox"> Heartbeats</label>
      </fieldset>
      <ol id="log" class="log" aria-label="REST calls and Gateway frames, secrets redacted"></ol>
    </section>
  </aside>
</div>
<dialog id="modal" aria-labelledby="modal-title">
  <form id="modal-form">
    <h2 id="modal-title">Form</h2>
    <div id="modal-fields"></div>
    <div class="row end"><button type="button" id="modal-cancel">Cancel</button><button type="submit" class="primary">Submit</button></div>
  </form>
</dialog>
</body>
</html>
`;

/** The style sheet: light, high-contrast, visible focus, from laptop width down to a narrow window. */
export const PAGE_STYLE = `:root{--bg:#f6f7f9;--panel:#fff;--ink:#15171a;--muted:#4a5160;--line:#c9ced6;--accent:#1849a9;--accent-ink:#fff;--ok:#11672e;--bad:#a3161a;--focus:#c2410c;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg)}
*{box-sizing:border-box}[hidden]{display:none!important}body{margin:0;min-height:100vh;display:flex;flex-direction:column}
h1{font-size:1.15rem;margin:0}h1 span{font-weight:400;color:var(--muted)}h2{font-size:1rem;margin:0 0 .4rem}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;z-index:9;background:var(--panel);padding:.4rem .6rem}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
button,select,input{font:inherit;color:inherit}
button{border:1px solid var(--line);background:var(--panel);border-radius:6px;padding:.35rem .7rem;cursor:pointer}
button:hover{border-color:var(--accent)}button.primary{background:var(--accent);border-color:var(--accent);color:var(--accent-ink)}
button.danger{background:var(--bad);border-color:var(--bad);color:#fff}button.success{background:var(--ok);border-color:var(--ok);color:#fff}
button[disabled]{opacity:.55;cursor:not-allowed}
input,select{border:1px solid #6b7280;border-radius:6px;padding:.35rem .5rem;background:#fff}
.top{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;padding:.6rem 1rem;background:var(--panel);border-bottom:1px solid var(--line)}
.pill{margin:0;padding:.15rem .6rem;border-radius:99px;font-size:.85rem;font-weight:600;border:1px solid}
.pill.on{color:var(--ok);border-color:var(--ok);background:#e7f6ec}.pill.off{color:var(--bad);border-color:var(--bad);background:#fdecec}
.act-as{margin-left:auto}
.layout{flex:1;display:grid;grid-template-columns:200px minmax(0,1fr) 360px;min-height:0}
nav{background:#eceff3;border-right:1px solid var(--line);padding:.8rem}
nav h2{font-size:.8rem;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);margin-top:.6rem}
nav ul{list-style:none;margin:0;padding:0}nav button{width:100%;text-align:left;border:0;background:none;padding:.3rem .5rem}
nav button[aria-current=true]{background:var(--accent);color:var(--accent-ink);font-weight:600}
main{display:flex;flex-direction:column;min-width:0;padding:.8rem 1rem;gap:.6rem;height:calc(100vh - 52px)}
.channel-head{display:flex;gap:.8rem;align-items:baseline;flex-wrap:wrap}.channel-head p{margin:0}
.muted{color:var(--muted)}
.activity{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:.5rem .7rem;display:flex;flex-wrap:wrap;gap:.3rem 1rem}
.messages{flex:1;overflow:auto;background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:.4rem .8rem}
.messages ol{list-style:none;margin:0;padding:0}
.msg{padding:.45rem 0;border-bottom:1px solid #eef0f3}.msg:last-child{border-bottom:0}
.meta{display:flex;gap:.5rem;align-items:baseline;flex-wrap:wrap}.author{font-weight:700}
.tag{font-size:.7rem;font-weight:700;background:var(--accent);color:#fff;border-radius:4px;padding:0 .3rem}.tag.hook{background:#5b3a98}
time{font-size:.8rem;color:var(--muted)}.ctx{font-size:.85rem;color:var(--muted)}
.content{white-space:pre-wrap;overflow-wrap:anywhere}
.thinking .content{font-style:italic;color:var(--muted)}
.components{display:flex;flex-direction:column;gap:.35rem;margin-top:.35rem}.components .row{display:flex;gap:.4rem;flex-wrap:wrap}
.composer{display:grid;grid-template-columns:minmax(0,1fr) auto;gap:.4rem}
.composer input{width:100%;padding:.55rem .7rem}
.combo{position:relative}
#suggestions{position:absolute;bottom:100%;left:0;right:0;margin:0 0 4px;padding:.25rem;list-style:none;background:var(--panel);border:1px solid #6b7280;border-radius:8px;max-height:260px;overflow:auto;box-shadow:0 4px 14px rgba(0,0,0,.15);z-index:5}
#suggestions li{padding:.35rem .5rem;border-radius:5px;cursor:pointer}#suggestions li[aria-selected=true]{background:var(--accent);color:#fff}
#suggestions li[aria-selected=true] .muted{color:#e8ecf7}
.hint{grid-column:1/-1;margin:0;font-size:.85rem;color:var(--muted)}.hint.error{color:var(--bad)}
.side{border-left:1px solid var(--line);background:var(--panel);padding:.8rem;overflow:auto;height:calc(100vh - 52px);display:flex;flex-direction:column;gap:1rem}
.side section{border-bottom:1px solid var(--line);padding-bottom:.8rem}
.faults{display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:.4rem;align-items:end}.faults label{display:grid;gap:.15rem;font-size:.85rem}.faults input{width:100%}.faults button{grid-column:1/-1}
.row{display:flex;flex-wrap:wrap;gap:.4rem;margin-top:.4rem;border:0;padding:0}.row.end{justify-content:flex-end}
ul.plain{list-style:none;margin:0;padding:0;font-size:.88rem}ul.plain li{padding:.2rem 0;border-bottom:1px dotted var(--line)}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85em}
.log{list-style:none;margin:0;padding:0;font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;max-height:40vh;overflow:auto}
.log li{padding:.15rem 0;border-bottom:1px dotted var(--line);overflow-wrap:anywhere}.log .k{font-weight:700}.log .bad{color:var(--bad)}.log .good{color:var(--ok)}
dialog{border:1px solid #6b7280;border-radius:10px;padding:1rem 1.2rem;width:min(480px,94vw)}dialog::backdrop{background:rgba(10,12,20,.5)}
dialog label{display:grid;gap:.2rem;margin:.5rem 0}dialog input,dialog textarea{width:100%;font:inherit;border:1px solid #6b7280;border-radius:6px;padding:.4rem}
@media (max-width:1100px){.layout{grid-template-columns:180px minmax(0,1fr)}.side{grid-column:1/-1;height:auto;border-left:0;border-top:1px solid var(--line)}main{height:auto;min-height:70vh}}
@media (max-width:700px){.layout{grid-template-columns:1fr}nav{border-right:0;border-bottom:1px solid var(--line)}nav ul{display:flex;flex-wrap:wrap;gap:.3rem}nav button{width:auto}.act-as{margin-left:0}main{padding:.6rem}.messages{min-height:50vh}}
`;
