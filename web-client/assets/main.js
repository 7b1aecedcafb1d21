// The client's entry point (being built).
document.getElementById("app").textContent = "Four Kings";
