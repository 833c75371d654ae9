"""The browser harness itself: a page renders, scripts run, blank pages are told apart."""
from browser import file_url, non_blank_fraction  # the browser and page fixtures come from conftest.py


def test_a_drawn_page_is_not_blank_and_an_empty_one_is(page, tmp_path):
    drawn = tmp_path / "drawn.html"
    drawn.write_text('<body style="margin:0"><div style="width:400px;height:300px;background:#c33"></div>'
                     '<script>document.body.dataset.ran = "yes"</script></body>')
    page.goto(file_url(drawn))
    assert page.locator("body").get_attribute("data-ran") == "yes"
    assert non_blank_fraction(page) > 0.05
    empty = tmp_path / "empty.html"
    empty.write_text("<body></body>")
    page.goto(file_url(empty))
    assert non_blank_fraction(page) == 0
    assert page.js_errors == []
