"use strict";
// The citation-verifier page: posts the form to /verify and renders the verdicts.
// Everything is rendered with textContent: page text is untrusted and never parsed as HTML.

(function () {
  const form = document.getElementById("verify-form");
  const claimInput = document.getElementById("claim");
  const urlsInput = document.getElementById("urls");
  const keyInput = document.getElementById("api-key");
  const submit = document.getElementById("submit");
  const statusLine = document.getElementById("status");
  const errorLine = document.getElementById("error");
  const results = document.getElementById("results");
  const heading = document.getElementById("results-heading");
  const overall = document.getElementById("overall");
  const overallClaim = document.getElementById("overall-claim");
  const cards = document.getElementById("citations");

  const LABEL_TEXT = {
    supported: "supported",
    contradicted: "contradicted",
    not_found: "not found",
    unreachable: "unreachable",
  };

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function badge(label) {
    const node = el("span", "badge badge-" + label, LABEL_TEXT[label] || label);
    node.dataset.label = label;
    return node;
  }

  function showError(message) {
    // An error replaces the previous results: they answered another request.
    results.hidden = true;
    errorLine.textContent = message;
    errorLine.hidden = false;
  }

  function row(list, name, value) {
    list.appendChild(el("dt", null, name));
    const dd = el("dd");
    if (value instanceof Node) dd.appendChild(value);
    else dd.textContent = value === null || value === undefined || value === "" ? "—" : String(value);
    list.appendChild(dd);
  }

  // The passage the quote came from, with the quote in a <mark>.
  function evidenceBlock(citation) {
    const figure = el("figure", "evidence");
    figure.appendChild(el("figcaption", null, "Evidence, in the passage it came from"));
    const block = el("blockquote", "passage");
    const context = citation.evidence_context;
    if (context && context.end > context.start) {
      const passage = context.passage;
      block.appendChild(document.createTextNode(passage.slice(0, context.start)));
      block.appendChild(el("mark", "quote", passage.slice(context.start, context.end)));
      block.appendChild(document.createTextNode(passage.slice(context.end)));
    } else {
      block.appendChild(el("mark", "quote", citation.evidence_quote));
    }
    figure.appendChild(block);
    return figure;
  }

  function card(citation, index) {
    const item = el("li", "card card-" + citation.label);
    const title = el("h3", "card-title");
    title.appendChild(el("span", "visually-hidden", "Citation " + (index + 1) + ": "));
    const link = el("a", null, citation.url);
    link.href = citation.url;
    link.rel = "noopener noreferrer nofollow";
    link.target = "_blank";
    title.appendChild(link);
    item.appendChild(title);

    const facts = el("dl", "facts");
    row(facts, "Label", badge(citation.label));
    row(facts, "Reason", citation.reason);
    row(facts, "Final URL", citation.final_url);
    row(facts, "Original status", citation.original_status);
    row(facts, "Confidence", typeof citation.confidence === "number" ? citation.confidence.toFixed(2) : null);
    if (citation.judge) row(facts, "Judge", citation.judge);
    item.appendChild(facts);

    if (citation.evidence_quote) item.appendChild(evidenceBlock(citation));
    else if (citation.detail) item.appendChild(el("p", "detail", citation.detail));
    return item;
  }

  function render(result) {
    overall.replaceWith(badge(result.overall));
    const fresh = heading.querySelector(".badge");
    fresh.id = "overall";
    overallClaim.textContent = "Claim: " + result.claim;
    cards.replaceChildren(...result.citations.map(card));
    results.hidden = false;
    heading.focus();
  }

  async function errorMessage(response) {
    try {
      const body = await response.json();
      if (body && typeof body.detail === "string") return body.detail;
    } catch (ignored) {
      // not JSON: fall through to the status line
    }
    return "The service answered " + response.status + " " + response.statusText;
  }

  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    errorLine.hidden = true;
    const claim = claimInput.value.trim();
    const urls = urlsInput.value.split(/\s+/).filter(Boolean);
    if (!claim) {
      showError("Enter the claim.");
      claimInput.focus();
      return;
    }
    if (urls.length === 0) {
      showError("Enter at least one URL.");
      urlsInput.focus();
      return;
    }
    const headers = { "Content-Type": "application/json" };
    if (keyInput.value) headers.Authorization = "Bearer " + keyInput.value;
    submit.disabled = true;
    statusLine.textContent = "Verifying " + urls.length + (urls.length === 1 ? " URL…" : " URLs…");
    try {
      const response = await fetch("/verify", {
        method: "POST",
        headers: headers,
        body: JSON.stringify({ claim: claim, urls: urls }),
      });
      if (!response.ok) {
        statusLine.textContent = "";
        showError(await errorMessage(response));
        return;
      }
      render(await response.json());
      statusLine.textContent = "Done.";
    } catch (failure) {
      statusLine.textContent = "";
      showError("Could not reach the service: " + failure.message);
    } finally {
      submit.disabled = false;
    }
  });
})();
