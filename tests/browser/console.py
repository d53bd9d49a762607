#!/usr/bin/env python3
"""Drives the SPARQL console of `refgraph serve --http` in headless Chromium (Debian's chromium
and chromium-driver, through Selenium): pick an example query, run it, see rows, sort a column,
download CSV, use completion, and save a screenshot. Prints one JSON object with what it saw; the
Rust test (tests/it/http.rs) judges it.

    python console.py http://127.0.0.1:PORT/ SCREENSHOT.png DOWNLOAD_DIR [first-screen]

With `first-screen` it only reads the first screen: the header, the query the editor opens
on, and what running that query shows.
"""
import glob
import json
import os
import shutil
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait


def column(driver, index):
    cells = driver.find_elements(By.CSS_SELECTOR, f".yasr table.dataTable tbody tr td:nth-child({index})")
    return [c.text.strip() for c in cells]


class FirstScreenDone(Exception):
    """The first-screen mode has read all it reads."""


def first_screen(driver, wait, seen):
    """What a documentation maintainer sees before typing anything, and what one click on the
    run button answers."""
    wait.until(lambda d: d.find_element(By.ID, "releases").text.strip())
    seen["header"] = driver.find_element(By.ID, "releases").text
    get_query = "return window.refgraphConsole.getTab().getQuery()"
    try:
        WebDriverWait(driver, 10).until(lambda d: "GRAPH <pkg:" in d.execute_script(get_query))
    except Exception:
        pass
    seen["first_editor"] = driver.execute_script(get_query)
    driver.find_element(By.CSS_SELECTOR, ".yasqe_queryButton").click()
    try:
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".yasr table.dataTable tbody tr td")))
        time.sleep(0.5)
    except Exception:
        pass
    seen["first_headers"] = [h.text.strip() for h in driver.find_elements(By.CSS_SELECTOR, ".yasr table.dataTable thead th")]
    seen["first_rows"] = len(driver.find_elements(By.CSS_SELECTOR, ".yasr table.dataTable tbody tr"))


def main(url, shot, downloads, mode=None):
    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000",
                "--disable-dev-shm-usage"):
        options.add_argument(arg)
    options.add_experimental_option("prefs", {
        "download.default_directory": downloads,
        "download.prompt_for_download": False,
    })
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    service = Service(shutil.which("chromedriver") or "/usr/bin/chromedriver")
    driver = webdriver.Chrome(options=options, service=service)
    driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
    wait = WebDriverWait(driver, 20)
    seen = {}
    try:
        driver.get(url)
        seen["title"] = driver.title
        if mode == "first-screen":
            first_screen(driver, wait, seen)
            driver.save_screenshot(shot)
            raise FirstScreenDone()
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "button.example")))
        seen["examples"] = [b.get_attribute("data-id") for b in driver.find_elements(By.CSS_SELECTOR, "button.example")]
        # Pick the releases example: it loads into the editor and runs.
        driver.find_element(By.CSS_SELECTOR, "button.example[data-id='01_releases']").click()
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".yasr table.dataTable tbody tr td")))
        time.sleep(0.5)
        seen["editor"] = driver.execute_script("return window.refgraphConsole.getTab().getQuery()")
        seen["headers"] = [h.text.strip() for h in driver.find_elements(By.CSS_SELECTOR, ".yasr table.dataTable thead th")]
        seen["rows"] = len(driver.find_elements(By.CSS_SELECTOR, ".yasr table.dataTable tbody tr"))
        # Column 1 is the row number; 2 is ?release. Sort by ?version (column 4) twice: descending.
        seen["release_column"] = column(driver, 2)
        version_header = driver.find_elements(By.CSS_SELECTOR, ".yasr table.dataTable thead th")[3]
        version_header.click()
        time.sleep(0.3)
        seen["versions_sorted_once"] = column(driver, 4)
        version_header = driver.find_elements(By.CSS_SELECTOR, ".yasr table.dataTable thead th")[3]
        version_header.click()
        time.sleep(0.3)
        seen["versions_sorted_twice"] = column(driver, 4)
        driver.save_screenshot(shot)
        # Download the table as CSV.
        driver.find_element(By.CSS_SELECTOR, ".yasr_downloadIcon").click()
        deadline = time.time() + 15
        files = []
        # Chromium can show the final name before the content is written (an empty file, or
        # one still growing beside a .crdownload): wait for a finished, non-empty, stable file.
        last_size = None
        while time.time() < deadline:
            names = glob.glob(os.path.join(downloads, "*"))
            files = [f for f in names if not f.endswith(".crdownload")]
            partial = len(files) != len(names)
            size = os.path.getsize(files[0]) if files else 0
            if files and not partial and size > 0 and size == last_size:
                break
            last_size = size
            time.sleep(0.2)
        seen["downloads"] = [os.path.basename(f) for f in files]
        seen["csv"] = open(files[0], encoding="utf-8").read() if files else None
        # Completion from this server: type a prefixed name and read the hint list.
        driver.execute_script(
            "var cm = window.refgraphConsole.getTab().getYasqe();"
            "cm.setValue('PREFIX rg: <https://refgraph.dev/ontology#>\\nSELECT * WHERE { ?s rg:qualif');"
            "cm.focus(); cm.setCursor(cm.lineCount() - 1, 1000);")
        driver.find_element(By.CSS_SELECTOR, ".CodeMirror textarea").send_keys("i")
        # Each key sends a completion request and each answer redraws the list: read the
        # texts in one script, so that a redraw between finding an item and reading it does
        # not lose them (a stale element).
        def hint_texts(d):
            return d.execute_script(
                "return Array.from(document.querySelectorAll('.CodeMirror-hints li'))"
                ".map(function (li) { return li.textContent; });") or False
        try:
            seen["hints"] = WebDriverWait(driver, 10).until(hint_texts)
        except Exception:
            seen["hints"] = []
        driver.find_element(By.CSS_SELECTOR, ".CodeMirror textarea").send_keys(Keys.ESCAPE)
        # Every resource the page loaded came from this server.
        seen["resources"] = driver.execute_script(
            "return performance.getEntriesByType('resource').map(function (e) { return e.name; })")
        seen["origin"] = driver.execute_script("return location.origin")
        # Symbol IRIs in results link to their entity page; follow one.
        driver.execute_script(
            "var tab = window.refgraphConsole.getTab();"
            "tab.setQuery('SELECT ?symbol WHERE { GRAPH ?g { ?symbol a <https://refgraph.dev/ontology#Class> } } "
            "ORDER BY ?symbol LIMIT 3'); tab.query();")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".yasr table.dataTable a.iri[href*='/entity?iri=']"))
        links = driver.find_elements(By.CSS_SELECTOR, ".yasr table.dataTable a.iri")
        seen["entity_links"] = [a.get_attribute("href") for a in links]
        links[0].click()
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "h1 code")))
        seen["entity_title"] = driver.find_element(By.CSS_SELECTOR, "h1 code").text
        seen["entity_version_line"] = driver.find_element(By.CSS_SELECTOR, "p.version").text
        # A shareable link opens the query it carries.
        driver.get(url.rstrip("/") + "/?query=" + "ASK%20%7B%20%3Fs%20%3Fp%20%3Fo%20%7D")
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".CodeMirror")))
        time.sleep(0.5)
        seen["shared_editor"] = driver.execute_script("return window.refgraphConsole.getTab().getQuery()")
    except FirstScreenDone:
        pass
    finally:
        driver.quit()
    print(json.dumps(seen))


if __name__ == "__main__":
    main(*sys.argv[1:5])
