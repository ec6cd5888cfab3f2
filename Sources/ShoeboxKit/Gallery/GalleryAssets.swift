/// The style sheet and script every gallery page shares (gallery.css, gallery.js beside
/// index.html): written once per gallery, cached by the browser across its pages.
enum GalleryAssets {
    /// Justified rows without a script: rows end at breakers (`.b`) that each band of screen
    /// widths shows (`GalleryRows.style`); in a row every cell grows from nothing in proportion to
    /// its aspect ratio (`--a`), so the row's pictures share one height and fill the width, never
    /// wider than the largest thumbnail (`--w`); the filler (`.f`) keeps the last row at the band's height.
    /// Colours pass WCAG AA (text 4.5:1 or more) on their backgrounds.
    static let style = """
    :root{color-scheme:light}
    *{box-sizing:border-box}
    body{margin:0;padding:1rem;font:16px/1.45 system-ui,sans-serif;background:#f6f6f4;color:#1d1d1b}
    a{color:#0b4f8a}a:hover{color:#07355c}
    a:focus-visible,button:focus-visible{outline:3px solid #c25e00;outline-offset:2px}
    h1{font-size:1.5rem;margin:.2rem 0}h2{font-size:1.15rem;margin:1.6rem 0 .5rem;border-bottom:1px solid #c8c8c4}
    header p{margin:.2rem 0 .6rem;color:#4a4a46}.n{font-weight:normal;color:#4a4a46;font-size:.9rem}
    .crumbs{font-size:.9rem;margin-bottom:.3rem}
    .pager{display:flex;flex-wrap:wrap;gap:.5rem 1.2rem;margin:.6rem 0}
    .days ul,.months{list-style:none;padding:0;margin:.4rem 0;display:flex;flex-wrap:wrap;gap:.3rem .8rem}
    .rows{display:flex;flex-wrap:wrap;gap:4px}
    .ph{position:relative;display:block;min-width:0;flex:calc(var(--a)*100) 1 0;max-width:var(--w)}
    .rows .b{display:none;flex:0 0 100%;height:0;margin-top:-4px}.rows .f{flex:calc(var(--f)*100) 1 0}
    .ph img{display:block;width:100%;height:auto;aspect-ratio:var(--a);object-fit:contain;background:#e4e4e0}
    .est{position:absolute;left:4px;bottom:4px;padding:0 .3rem;font-size:.75rem;background:#000000c8;color:#fff;border-radius:3px}
    .est.missing{background:#8a0015}
    .months li a{display:flex;flex-direction:column;align-items:flex-start;text-decoration:none;padding:.2rem}
    .months img{display:block;width:auto;height:auto;max-width:160px;max-height:120px;background:#e4e4e0}
    .months .label{text-decoration:underline}
    .view{margin:0}.view img{display:block;max-width:100%;max-height:80vh;width:auto;height:auto}
    .facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}.facts dt{font-weight:600}.facts dd{margin:0;overflow-wrap:anywhere}
    .facts ul{margin:0;padding-left:1.1rem}.caveat{color:#6b3d00}
    img.map{max-width:100%;height:auto}
    dialog{border:0;padding:.8rem;max-width:100vw;max-height:100vh;background:#111;color:#f2f2f2}
    dialog::backdrop{background:#000000d9}
    dialog img{display:block;margin:0 auto;max-width:calc(100vw - 3rem);max-height:calc(100vh - 9rem);width:auto;height:auto}
    dialog p{margin:.5rem 0 0}dialog a{color:#9cd0ff}
    dialog button{font:inherit;margin:.4rem .4rem 0 0;padding:.2rem .7rem;background:#333;color:#fff;border:1px solid #777;border-radius:3px}
    @media (max-width:40rem){body{padding:.5rem}}
    \(GalleryRows.style)
    """

    /// The photo view: on a page of photos, a click (or Enter) on a picture opens it large in a
    /// dialog, ← and → move through the page, Esc closes and returns to the picture. On a photo's
    /// own page, ←, → and Esc follow its earlier, later and back links. Text is set as text only.
    static let script = """
    (function () {
      'use strict';
      var doc = document;
      function follow(rel) {
        var link = doc.querySelector('a[rel~="' + rel + '"]');
        if (link) { location.href = link.href; }
      }
      function plainKey(event) { return !(event.altKey || event.ctrlKey || event.metaKey || event.shiftKey); }
      var tiles = Array.prototype.slice.call(doc.querySelectorAll('a.ph'));
      if (!tiles.length) {
        doc.addEventListener('keydown', function (event) {
          if (!plainKey(event)) { return; }
          if (event.key === 'ArrowLeft') { follow('prev'); }
          else if (event.key === 'ArrowRight') { follow('next'); }
          else if (event.key === 'Escape') { follow('up'); }
        });
        return;
      }
      if (typeof HTMLDialogElement !== 'function') { return; }
      var dialog = doc.createElement('dialog');
      dialog.setAttribute('aria-label', 'Photo');
      var image = doc.createElement('img');
      var info = doc.createElement('p');
      var links = doc.createElement('p');
      var details = doc.createElement('a');
      details.textContent = 'Details';
      var original = doc.createElement('a');
      original.textContent = 'Original';
      var buttons = doc.createElement('div');
      function button(label, action) {
        var b = doc.createElement('button');
        b.type = 'button'; b.textContent = label; b.addEventListener('click', action);
        buttons.appendChild(b);
        return b;
      }
      var current = -1;
      button('← Earlier', function () { show(current - 1); });
      button('Later →', function () { show(current + 1); });
      // Closing gives focus to the photo shown last (the browser would restore the one first opened).
      function hide() {
        dialog.close();
        if (tiles[current]) { tiles[current].focus(); }
      }
      var close = button('Close (Esc)', hide);
      links.appendChild(details);
      links.appendChild(doc.createTextNode(' · '));
      links.appendChild(original);
      dialog.appendChild(image); dialog.appendChild(info); dialog.appendChild(links); dialog.appendChild(buttons);
      doc.body.appendChild(dialog);
      function show(index) {
        if (index < 0 || index >= tiles.length) { return; }
        current = index;
        var tile = tiles[index], thumb = tile.querySelector('img');
        image.removeAttribute('src');
        image.width = +tile.getAttribute('data-fw'); image.height = +tile.getAttribute('data-fh');
        image.alt = thumb ? thumb.alt : '';
        image.src = tile.getAttribute('data-full');
        info.textContent = tile.getAttribute('data-info') || '';
        details.href = tile.href;
        var source = tile.getAttribute('data-original');
        original.hidden = !source;
        links.childNodes[1].textContent = source ? ' · ' : '';
        if (source) { original.href = source; }
        if (tile.hasAttribute('data-download')) { original.setAttribute('download', ''); } else { original.removeAttribute('download'); }
        if (!dialog.open) { dialog.showModal(); close.focus(); }
      }
      tiles.forEach(function (tile, index) {
        tile.addEventListener('click', function (event) {
          if (event.button !== 0 || !plainKey(event)) { return; }
          event.preventDefault();
          show(index);
        });
      });
      dialog.addEventListener('keydown', function (event) {
        if (!plainKey(event)) { return; }
        if (event.key === 'ArrowLeft') { event.preventDefault(); show(current - 1); }
        else if (event.key === 'ArrowRight') { event.preventDefault(); show(current + 1); }
        else if (event.key === 'Escape') { event.preventDefault(); hide(); }
      });
      dialog.addEventListener('close', function () {
        image.removeAttribute('src');
      });
      dialog.addEventListener('click', function (event) { if (event.target === dialog) { hide(); } });
    })();

    """
}
