// A classic script (it still runs from file://, where ES modules do not): explain instead of
// showing a silent blank page.
if (location.protocol === "file:") {
  document.addEventListener("DOMContentLoaded", () => {
    const warning = document.getElementById("file-warning");   // the page shell's (templates/)
    if (warning) warning.hidden = false;
    document.documentElement.classList.add("is-file");
  });
}
