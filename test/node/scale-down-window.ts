// The scale-down window the node and helm suites give Berth (--scale-down-window-seconds): short, so a
// scale-in is proved without waiting out the production default of 60 s.
export const scaleDownWindowSeconds = 15;
