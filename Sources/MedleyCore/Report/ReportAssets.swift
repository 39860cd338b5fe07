/// The report page's style sheet and its one script, inline (the page allows exactly this script
/// by its SHA-256 in the Content-Security-Policy; nothing is fetched).
enum ReportAssets {
    static let style = """
        body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}h1{margin:0 0 .3em}
        table.summary th{text-align:left;padding-right:1em;font-weight:normal;color:#555}
        .charts{display:flex;flex-wrap:wrap;gap:12px}figure.chart{border:1px solid #ddd;border-radius:6px;background:#fff}
        figure.chart svg{display:block;font-size:11px;fill:#444}figure.chart figcaption{max-width:500px;padding:0 8px 6px;text-align:left}figure.chart text.heading{font-size:13px;font-weight:bold}
        .sheet{display:grid;grid-template-columns:repeat(auto-fill,minmax(360px,1fr));gap:12px}
        article.item{border:1px solid #ddd;border-radius:6px;padding:8px;background:#fff}
        article.item.failed{border-color:#d99}article.item.excluded,article.item.ignored{background:#fafafa}
        article.item h3{font-size:13px;margin:0 0 6px;word-break:break-all}
        .pictures{display:flex;gap:8px}figure{margin:0;text-align:center}
        figure img{max-width:160px;max-height:160px;display:block}figure.wave img{max-width:100%;height:auto}
        figcaption{font-size:11px;color:#666}figure.missing{width:160px;height:60px;background:#f3f3f3}
        .failure .reason,article .reason{color:#a00}.warning{color:#8a5a00;font-size:12px}.note{color:#666;font-size:12px}
        details.failure-group summary .count{display:inline-block;min-width:4em;font-weight:bold}
        .controls{margin:.5em 0}.controls input{width:22em}.pager button{margin-right:4px}
        table.meters,table.properties,table.loudness{font-size:12px;border-collapse:collapse}
        table.meters td,table.meters th,table.properties td,table.properties th,table.loudness td,table.loudness th{padding:1px 6px;text-align:left}
        img.broken{outline:2px solid #a00}footer{margin-top:2em;color:#888;font-size:12px}
        """

    /// Shows the items of `#item-data` 50 at a time: a search (a case-insensitive substring of the
    /// item or its input), a status and a media-type filter and pages, all kept in the URL's
    /// fragment (`#q=…&status=…&type=…&page=N`), so a link opens the same view. Cards are built
    /// with DOM calls (text as text, never as markup). Each picture is marked once it loads or
    /// fails, so a reader of the page, or a test, sees which thumbnails are missing.
    static let script = """
        (() => {
        'use strict';
        const items = JSON.parse(document.getElementById('item-data').textContent);
        const perPage = 50;
        const audio = new Set(['music', 'podcast', 'audioBook']);
        const keys = items.map(r => (r.i + '\\n' + r.n).toLowerCase());
        const $ = id => document.getElementById(id);
        const search = $('search'), status = $('status'), type = $('type'), shown = $('shown'), sheet = $('sheet');
        function el(tag, attributes, text) {
          const e = document.createElement(tag);
          for (const [k, v] of Object.entries(attributes || {})) e.setAttribute(k, v);
          if (text !== undefined) e.textContent = text;
          return e;
        }
        function picture(src, alt, wave) {
          const img = el('img', {loading: 'lazy', alt: alt});
          if (wave) { img.width = 480; img.height = 64; }
          const mark = () => { img.dataset.naturalWidth = img.naturalWidth; if (!img.naturalWidth) img.classList.add('broken'); };
          img.addEventListener('load', mark); img.addEventListener('error', mark);
          img.src = src;
          return img;
        }
        function table(className, header, rows) {
          const t = el('table', {class: className});
          const head = el('tr'); for (const h of header) head.append(el('th', {}, h)); t.append(head);
          for (const row of rows) { const tr = el('tr'); for (const c of row) tr.append(el('td', {}, c)); t.append(tr); }
          return t;
        }
        function card(r) {
          const a = el('article', {class: 'item ' + r.s, 'data-item': r.i, 'data-status': r.s, 'data-type': r.t || 'none'});
          a.append(el('h3', {title: r.n}, r.i || r.n));
          const pictures = el('div', {class: 'pictures'});
          const done = r.s === 'succeeded' || r.s === 'skipped';
          if (done && (r.t === 'image' || r.a)) {
            const list = r.t === 'image' ? [['before', r.b], ['after', r.a]] : [['poster', r.a]];
            for (const [label, src] of list) {
              if (src) { const f = el('figure'); f.append(picture(src, label, false), el('figcaption', {}, label)); pictures.append(f); }
              else { const f = el('figure', {class: 'missing'}); f.append(el('figcaption', {}, label + ': no picture')); pictures.append(f); }
            }
          } else if (done && r.w) {
            const f = el('figure', {class: 'wave'}); f.append(picture(r.w, 'waveform', true)); pictures.append(f);
          }
          a.append(pictures);
          if (r.m) a.append(table('meters', ['channel', 'peak dBFS', 'average dBFS'], r.m));
          if (r.l) {
            const t = el('table', {class: 'loudness'});
            const head = el('tr'); head.append(el('th', {colspan: '2'}, 'loudness (EBU R128)')); t.append(head);
            [['integrated', 'integrated'], ['range', 'loudness range'], ['samplePeak', 'sample peak'], ['truePeak', 'true peak']]
              .forEach(([key, label], k) => { const tr = el('tr'); tr.append(el('th', {}, label), el('td', {'data-loudness': key}, r.l[k])); t.append(tr); });
            a.append(t);
          }
          if (r.o) {
            const p = el('p'); p.append(el('a', {class: 'output', href: r.o}, r.on));
            if (r.s === 'skipped') { p.append(' '); p.append(el('span', {class: 'note'}, 'unchanged since the last run')); }
            a.append(p);
            if (r.mv) a.append(el('p', {class: 'note'}, 'source moved to ' + r.mv));
          }
          if (r.r) a.append(el('p', {class: 'reason'}, r.r));
          if (r.wa) { const p = el('p', {class: 'warning'}); r.wa.forEach((w, k) => { if (k) p.append(el('br')); p.append(w); }); a.append(p); }
          const details = el('details'); details.append(el('summary', {}, 'properties'));
          const props = el('table', {class: 'properties'});
          for (const [k, v] of r.p || []) { const tr = el('tr'); tr.append(el('th', {}, k), el('td', {}, v)); props.append(tr); }
          details.append(props); a.append(details);
          return a;
        }
        function view() {
          const p = new URLSearchParams(location.hash.slice(1));
          const page = parseInt(p.get('page') || '1', 10);
          return {q: p.get('q') || '', status: p.get('status') || '', type: p.get('type') || '', page: page > 0 ? page : 1};
        }
        function go(v, typing) {
          const p = new URLSearchParams();
          if (v.q) p.set('q', v.q); if (v.status) p.set('status', v.status); if (v.type) p.set('type', v.type);
          if (v.page > 1) p.set('page', String(v.page));
          const hash = '#' + p.toString();
          if (location.hash === hash) render();
          else if (typing) location.replace(hash); // each keystroke is not a step back
          else location.hash = hash;
        }
        function pager(nav, page, pages, v) {
          nav.replaceChildren();
          const button = (label, target) => {
            const b = el('button', {type: 'button', 'data-page': String(target)}, label);
            b.disabled = target === page || target < 1 || target > pages;
            b.addEventListener('click', () => go(Object.assign(v, {page: target})));
            nav.append(b);
          };
          button('« first', 1); button('‹ previous', page - 1);
          nav.append(el('span', {class: 'page'}, ' page ' + page + ' of ' + pages + ' '));
          button('next ›', page + 1); button('last »', pages);
        }
        function render() {
          const v = view();
          if (document.activeElement !== search) search.value = v.q;
          status.value = v.status; type.value = v.type;
          const needle = v.q.toLowerCase();
          const matches = [];
          for (let k = 0; k < items.length; k++) {
            const r = items[k], t = r.t || 'none';
            if (v.status && r.s !== v.status) continue;
            if (v.type && t !== v.type && !(v.type === 'audio' && audio.has(t))) continue;
            if (needle && !keys[k].includes(needle)) continue;
            matches.push(k);
          }
          const pages = Math.max(1, Math.ceil(matches.length / perPage));
          const page = Math.min(v.page, pages);
          sheet.replaceChildren(...matches.slice((page - 1) * perPage, page * perPage).map(k => card(items[k])));
          shown.textContent = matches.length + ' of ' + items.length + ' items';
          shown.dataset.matches = matches.length; shown.dataset.page = page; shown.dataset.pages = pages;
          pager($('pager-top'), page, pages, v); pager($('pager'), page, pages, v);
        }
        search.addEventListener('input', () => go(Object.assign(view(), {q: search.value, page: 1}), true));
        status.addEventListener('change', () => go(Object.assign(view(), {status: status.value, page: 1})));
        type.addEventListener('change', () => go(Object.assign(view(), {type: type.value, page: 1})));
        $('controls').addEventListener('submit', e => e.preventDefault());
        window.addEventListener('hashchange', render);
        render();
        })();
        """
}
