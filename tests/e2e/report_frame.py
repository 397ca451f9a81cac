#!/usr/bin/env python3
"""report_frame.py PAGE WIDTH OUT: write OUT, a page that shows PAGE (an
upskill report) in a WIDTH px wide frame (srcdoc, so the same origin) and,
once it has loaded, writes what the frame measures into its own DOM, read
back with chromium --dump-dom (the report itself carries no test code):

  <pre id="measure">sw=SCROLLWIDTH cw=CLIENTWIDTH font=PX broken=N boxes=N
  marks=N drawn=N verdict=N late=N rows=N wide=LIST</pre>

sw > cw: the page overflows horizontally; font: the smallest chart text in
CSS px as drawn (its font size times the chart's scale); broken: table
cells of numbers or names (not a verdict, a case text, or a provenance
value, where hashes and paths wrap) laid out on more
than one line, e.g. a p-value or a model name broken at a hyphen;
boxes: chart and table boxes (.scroll) and tables that scroll sideways
(scrollWidth > clientWidth), wide naming them; drawn: the forest plots'
markers shown, marks: those of them outside their chart's visible area
(its box, the frame); verdict: lift-table verdicts outside their box or
the frame; late: lift-table cells (not the model's name) laid out not below
their row's verdict (in a table row, all of them); rows: case matrix
rows shown (a row the filter hid is not).  A chart not shown (display:none, the other width's
variant) is not measured.
(Headless Chromium will not lay a window out narrower than ~500 px, hence
the frame.)"""
import html
import sys

JS = """function m(){var f=document.getElementById('f'),w=f.contentWindow,
d=w.document,e=d.documentElement,min=99,broken=0;
d.querySelectorAll('svg.chart').forEach(function(s){
 if(!s.getClientRects().length)return;
 var k=s.getBoundingClientRect().width/s.viewBox.baseVal.width;
 s.querySelectorAll('text').forEach(function(t){
  var z=parseFloat(w.getComputedStyle(t).fontSize)*k;if(z<min)min=z;});});
d.querySelectorAll('table:not(.prov) td:not(.verdict):not(.text):not(.nm)').forEach(function(c){
 var r=d.createRange(),tops={},n=0;r.selectNodeContents(c);
 Array.prototype.forEach.call(r.getClientRects(),function(q){
  var y=Math.round(q.top);if(!tops[y]){tops[y]=1;n++;}});
 if(n>1)broken++;});
var boxes=0,wide=[],marks=0,drawn=0,verdict=0,late=0,cw=e.clientWidth;
function vis(r,b){return r.left>=Math.max(0,b.left)-0.5&&
 r.right<=Math.min(cw,b.right)+0.5;}
d.querySelectorAll('.scroll,table').forEach(function(b){
 if(b.getClientRects().length&&b.scrollWidth>b.clientWidth){boxes++;
  wide.push((b.id||b.className||b.tagName)+':'+b.scrollWidth+'>'+b.clientWidth);}});
d.querySelectorAll('svg.chart[aria-labelledby^=forest] .pt').forEach(function(p){
 if(!p.getClientRects().length)return;drawn++;
 var s=p.ownerSVGElement.getBoundingClientRect(),
  b=p.ownerSVGElement.parentNode.getBoundingClientRect();
 if(!vis(p.getBoundingClientRect(),s)||!vis(p.getBoundingClientRect(),b))
  marks++;});
d.querySelectorAll('table.lift tbody tr').forEach(function(r){
 var v=r.querySelector('td.verdict');if(!v)return;
 var q=v.getBoundingClientRect();
 if(!vis(q,v.closest('.scroll').getBoundingClientRect()))verdict++;
 r.querySelectorAll('td:not(:first-child):not(.verdict)').forEach(
  function(c){if(c.getBoundingClientRect().top<=q.top)late++;});});
var rows=0;d.querySelectorAll('table[id^=matrix] tbody tr').forEach(
 function(r){if(r.getClientRects().length)rows++;});
document.getElementById('measure').textContent='sw='+e.scrollWidth+
 ' cw='+cw+' font='+min.toFixed(1)+' broken='+broken+' boxes='+boxes+
 ' marks='+marks+' drawn='+drawn+' verdict='+verdict+' late='+late+
 ' rows='+rows+
 ' wide='+wide.join(',');}"""


def main():
    page, width, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(page, encoding='utf-8') as f:
        s = f.read()
    with open(out, 'w', encoding='utf-8') as f:
        f.write('<!DOCTYPE html><html><body style="margin:0">'
                '<pre id="measure">none</pre><iframe id="f" '
                'style="border:0" width="%d" height="900" onload="m()" '
                'srcdoc="%s"></iframe><script>%s</script></body></html>'
                % (width, html.escape(s, quote=True), JS))


main()
