import{e as a,f as b,g as c}from"./chunk-FZSVVFGI.js";import"./chunk-JZOOHZJG.js";export{a as loadFleetMap,c as mountPoseMap,b as poseOfPayload};
